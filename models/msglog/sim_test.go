package msglog

import (
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// TestFig51 is Fig. 5.1 (§5.1.2) with each logger: P1 crashes after its
// third delivery; only P1 rolls back and replays m2, m4, m3 from P2, P2
// and P0; m1 and m5 are regenerated and not re-sent; the outputs are
// those of the failure-free run.
func TestFig51(t *testing.T) {
	for _, k := range []el.Kind{el.Centralized, el.Classic, el.Parallel} {
		t.Run(k.String(), func(t *testing.T) {
			p := Params{Program: "fig51", Procs: 3, Logger: k, F: 1}
			ff, err := Simulate(p, Crash{}, 0)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Simulate(p, Crash{Rank: 1, K: 3}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if r.Violation != "" || ff.Violation != "" {
				t.Fatalf("violation: %s %s", r.Violation, ff.Violation)
			}
			if !slices.Equal(r.RolledBack, []int{1}) || !slices.Equal(r.Replayed[1], []int{2, 2, 0}) || r.Suppressed != 2 {
				t.Fatalf("rolled back %v, replayed %v, suppressed %d; want [1], [2 2 0], 2", r.RolledBack, r.Replayed, r.Suppressed)
			}
			if !slices.Equal(r.Outputs, ff.Outputs) {
				t.Fatalf("outputs %v, failure-free %v", r.Outputs, ff.Outputs)
			}
			_ = core.NoRank
		})
	}
}
