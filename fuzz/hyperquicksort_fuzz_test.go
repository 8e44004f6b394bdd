package fuzz

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/internal/mutant"
	model "github.com/ftkernel/ftkernel/models/hyperquicksort"
	hq "github.com/ftkernel/ftkernel/statemachine/hyperquicksort"
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
		if err := hyperquicksortRun(data, mutant.None); err != nil {
			t.Fatal(err)
		}
	})
}

// hyperquicksortRun is one run of FuzzHyperquicksortSchedule's target
// under mutant mut: the first error or violated property.
func hyperquicksortRun(data []byte, mut mutant.Name) error {
	if len(data) < 3 {
		return nil
	}
	n := 2 << (data[0] % 4)
	p := model.Params{
		N: n, Baseline: model.Baseline(data[0] / 4 % 2),
		Values: 1 + int(data[1]%4), MaxNonRec: int(data[1]/4) % n,
		Inputs: 1, InputBase: int(data[2]), Mutant: mut,
	}
	m, err := model.NewModel(p)
	if err != nil {
		return err
	}
	w := m.Init()[0]
	var buf []checker.Action
	check := func(kind checker.PropertyKind) error {
		for _, pr := range m.Properties() {
			if pr.Kind == kind && !pr.ExpectFail {
				if err := pr.Check(w); err != nil {
					return fmt.Errorf("%+v: %s: %w", p, pr.Name, err)
				}
			}
		}
		return nil
	}
	for k := 3; ; k++ {
		buf = m.Actions(w, buf[:0])
		if len(buf) == 0 {
			return check(checker.Quiescence)
		}
		pick := 0
		if k < len(data) {
			pick = int(data[k])
		}
		if w, err = m.Apply(w, buf[pick%len(buf)]); err != nil {
			return fmt.Errorf("%+v: step %d: %w", p, k-3, err)
		}
		if err := check(checker.Invariant); err != nil {
			return err
		}
	}
}

// TestHyperquicksortTargetCanFail: the fuzz target's check fails on a
// schedule under the skip-store mutant (n = 4, {p0,p1,p2} non-recommended
// in the first round: p3 plays every rank from empty copies) and passes on
// the same schedule without it.
func TestHyperquicksortTargetCanFail(t *testing.T) {
	data := []byte{1, 13, 0, 7}
	if err := hyperquicksortRun(data, hq.MutantSkipStore); err == nil {
		t.Error("skip-store: no violation")
	} else {
		t.Log(err)
	}
	if err := hyperquicksortRun(data, mutant.None); err != nil {
		t.Error(err)
	}
}
