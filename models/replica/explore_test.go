package replica

import (
	"os"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// search builds p and runs a complete BFS on one worker.
func search(t *testing.T, p Params, opt checker.Options) *checker.Result {
	t.Helper()
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	if opt.Workers == 0 {
		opt.Workers = 1
	}
	res := checker.Search(m.Model, opt)
	if res.Err != nil {
		t.Fatalf("%s: %v", m.Name(), res.Err)
	}
	return res
}

func TestScratchSizes(t *testing.T) {
	if os.Getenv("REPLICA_SCRATCH") == "" {
		t.Skip()
	}
	for _, prog := range []string{"ping-pong", "ring", "gather-sum", "master-worker", "mid-example", "gather-sum-any-source", "gather-diff-any-source"} {
		for _, net := range []env.Network{env.FIFO, env.Unordered} {
			procs := 2
			if prog == "mid-example" || prog == "gather-sum-any-source" || prog == "gather-diff-any-source" {
				procs = 3
			}
			p := Params{Program: prog, Procs: procs, Degree: 2, Crashes: 1, Network: net, ReplicateRank0: true}
			res := search(t, p, checker.Options{MaxStates: 3_000_000, ContinueAfterViolation: true})
			t.Logf("%s net=%v: %d states, %d generated, depth %d, complete=%v, %.1fs", prog, net, res.States, res.Transitions, res.Depth, res.Complete, res.Seconds)
			for _, v := range res.Violations {
				t.Logf("   %s after %d steps: %s", v.Violation.Property, len(v.Steps), v.Violation.Message)
			}
		}
	}
}
