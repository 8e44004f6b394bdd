package replica

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// search builds p and runs a BFS on one worker.
func search(t testing.TB, p Params, opt checker.Options) *checker.Result {
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

// TestScratchSizes prints state counts for REPLICA_SCRATCH="prog:procs:degree:crashes:net[:rep0] ...".
func TestScratchSizes(t *testing.T) {
	spec := os.Getenv("REPLICA_SCRATCH")
	if spec == "" {
		t.Skip()
	}
	for _, s := range strings.Fields(spec) {
		var p Params
		var net string
		f := strings.Split(s, ":")
		p.Program = f[0]
		fmt.Sscan(f[1], &p.Procs)
		fmt.Sscan(f[2], &p.Degree)
		fmt.Sscan(f[3], &p.Crashes)
		net = f[4]
		if net == "fifo" {
			p.Network = env.FIFO
		}
		p.ReplicateRank0 = len(f) > 5 && f[5] == "rep0"
		if len(f) > 6 {
			p.Mutant = mutantName(f[6])
		}
		opt := checker.Options{MaxStates: 2_000_000, ContinueAfterViolation: true}
		if os.Getenv("REPLICA_DFS") != "" {
			opt.Mode, opt.POR = checker.DepthFirst, true
		}
		res := search(t, p, opt)
		fmt.Fprintf(os.Stderr, "%s: %d states, %d generated, depth %d, complete=%v, por=%v %s, %.1fs\n", s, res.States, res.Transitions, res.Depth, res.Complete, res.POR, res.PORNote, res.Seconds)
		for _, v := range res.Violations {
			fmt.Fprintf(os.Stderr, "   %s after %d steps: %s\n", v.Violation.Property, len(v.Steps), v.Violation.Message)
		}
	}
}
