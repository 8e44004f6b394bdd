package ringfd

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// TestCheckModelCodec: the check model decodes its worlds (the compact
// frontier): along random walks with daemon and process crashes,
// Decode(Encode(w)) encodes, fingerprints and acts as w; and BFS with the
// compact frontier gives the whole-state frontier's counts.
func TestCheckModelCodec(t *testing.T) {
	for _, p := range []CheckParams{
		{N: 4, Procs: 2, Crashes: 2, Delta: 2, Period: 2, Timeout: 5},
		{N: 3, Procs: 1, Crashes: 2, Delta: 1, Period: 2, Timeout: 4, BMG: fd.BMGOMPI, Network: env.FIFO},
	} {
		m, err := NewCheckModel(p)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Decodes() {
			t.Fatal("no codec")
		}
		r := rand.New(rand.NewPCG(7, uint64(p.N)))
		n, crashed := 0, 0
		for range 10 {
			w := m.Init()[0]
			for range 120 {
				got, err := m.Decode(m.Encode(nil, w))
				if err != nil {
					t.Fatalf("%v: %v", w, err)
				}
				if string(m.Encode(nil, got)) != string(m.Encode(nil, w)) || m.Fingerprint(got) != m.Fingerprint(w) ||
					m.Quiescent(got) != m.Quiescent(w) || !cmp.Equal(m.Actions(got, nil), m.Actions(w, nil)) || got.Spent() != w.Spent() {
					t.Fatalf("%v: the decoded world differs", w)
				}
				n++
				if w.NumCrashed() > 0 {
					crashed++
				}
				a, ok := m.Sample(w, r, nil)
				if !ok {
					break
				}
				if r.IntN(20) == 0 { // a crash, when the budget allows one
					for _, c := range m.Actions(w, nil) {
						if c.Kind == env.Crash && r.IntN(2) == 0 {
							a = c
						}
					}
				}
				if w, err = m.Apply(w, a); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := m.Decode([]byte{1, 2, 3}); err == nil {
			t.Fatal("garbage decoded")
		}
		if crashed == 0 {
			t.Fatal("no walk crashed anything")
		}
		t.Logf("%+v: %d worlds decoded, %d with crashes", p, n, crashed)
	}
	m, _ := NewCheckModel(CheckParams{N: 3, Procs: 1, Crashes: 1, Delta: 1, Period: 2, Timeout: 4})
	props := []string{PropAccuracy, PropForwardOnce}
	whole := checker.BFS[*env.World](m, checker.Options{Workers: 2, WholeStates: true, Properties: props})
	comp := checker.BFS[*env.World](m, checker.Options{Workers: 2, Properties: props})
	if !comp.Compact || comp.States != whole.States || comp.Transitions != whole.Transitions || comp.Err != nil {
		t.Fatalf("compact %v: %d/%d, whole %d/%d (%v)", comp.Compact, comp.States, comp.Transitions, whole.States, whole.Transitions, comp.Err)
	}
}
