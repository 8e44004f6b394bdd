package replica

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// TestRandomWalksLarge: seeded random walks at sizes no exhaustive search
// reaches (5 logical processes, degree 3, rank 0 replicated, 5 crashes)
// find no violation on the explicit-source programs.
func TestRandomWalksLarge(t *testing.T) {
	for _, prog := range []string{"ping-pong", "ring", "gather-sum", "master-worker", "mid-example"} {
		m, err := NewModel(Params{Program: prog, Procs: 5, Degree: 3, Rounds: 3, ReplicateRank0: true, Crashes: 5, CrashProb: 0.02, Network: env.Unordered})
		if err != nil {
			t.Fatal(err)
		}
		res := checker.Walk(m.Model, checker.WalkOptions{Walks: 200, MaxSteps: 5000, Seed: 1, Workers: 1})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		quiet := 0
		for _, w := range res.PerWalk {
			if w.Quiescent {
				quiet++
			}
		}
		t.Logf("%s: %d walks, %d steps, %d quiescent, %.0f steps/s", prog, res.Walks, res.Steps, quiet, res.StepsPerSec)
		if res.Violation != nil {
			t.Fatalf("%s: %s", prog, res.Violation.Violation.Message)
		}
		if quiet != res.Walks {
			t.Fatalf("%s: only %d of %d walks reached quiescence", prog, quiet, res.Walks)
		}
	}
}
