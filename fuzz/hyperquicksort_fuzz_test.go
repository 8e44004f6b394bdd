package fuzz

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	model "github.com/ftkernel/ftkernel/models/hyperquicksort"
)

// FuzzHyperquicksortSchedule: data[0] picks n (2, 4, 8 or 16) and the
// baseline, data[1] the values per process and the bound K, data[2] the
// input vector; every later byte picks the next action among the enabled
// ones (the non-recommended set of a sorting round, a start, a delivery).
// Every step applies without error, invariants hold on the way, and a run
// that ends does so with every sorting round over, a sorted output, and
// the input (DGRP) or the input less the failed processes' lists (ULFM).
func FuzzHyperquicksortSchedule(f *testing.F) {
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{2, 0x35, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{7, 0xff, 3, 200, 100, 50, 25, 12, 6, 3, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		n := 2 << (data[0] % 4)
		p := model.Params{
			N: n, Baseline: model.Baseline(data[0] / 4 % 2),
			Values: 1 + int(data[1]%4), MaxNonRec: int(data[1]/4) % n,
			Inputs: 1, InputBase: int(data[2]),
		}
		m, err := model.NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		w := m.Init()[0]
		var buf []checker.Action
		for k := 3; ; k++ {
			buf = m.Actions(w, buf[:0])
			if len(buf) == 0 {
				break
			}
			pick := 0
			if k < len(data) {
				pick = int(data[k])
			}
			if w, err = m.Apply(w, buf[pick%len(buf)]); err != nil {
				t.Fatalf("%+v: step %d: %v", p, k-3, err)
			}
			for _, pr := range m.Properties() {
				if pr.Kind == checker.Invariant && !pr.ExpectFail {
					if err := pr.Check(w); err != nil {
						t.Fatalf("%+v: %s: %v", p, pr.Name, err)
					}
				}
			}
		}
		for _, pr := range m.Properties() {
			if pr.Kind == checker.Quiescence && !pr.ExpectFail {
				if err := pr.Check(w); err != nil {
					t.Fatalf("%+v: %s: %v", p, pr.Name, err)
				}
			}
		}
	})
}
