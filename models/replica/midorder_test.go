package replica

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// midOrderRow is the exhaustive row of master-worker that sees an MID
// order ignoring the destination: P_0 replicated sends tag-1 tasks to two
// workers, whose MIDs differ only in the destination.
const midOrderRow = "--program master-worker --procs 3 --degree 2 --replicate-rank0 --crashes 1"

// TestMIDOrderRow: `ftcheck check replica ROW --dfs --por` (with and
// without --forget-crashed) on mid-order-ignores-dst stops at a validity
// violation after 17 steps that replays: P0's master crashes first, its
// replica backs the task for P2 up over the one for P1, takes over and
// re-sends only P2's, and waits forever for P1's answer. The correct
// protocol completes the same searches with every property holding
// (19,059,884 states with --forget-crashed, 28,331,998 without; minutes
// each, so only with FTKERNEL_LONG=1).
func TestMIDOrderRow(t *testing.T) {
	opt := checker.Options{Mode: checker.DepthFirst, POR: true, Workers: 1}
	for _, c := range []struct {
		extra       []string
		states      int64
		transitions int64
	}{
		{[]string{"--forget-crashed"}, 19_059_884, 85_065_493},
		{nil, 28_331_998, 122_654_184},
	} {
		args := append(strings.Fields(midOrderRow), c.extra...)
		r := modeltest.Build(t, "replica", append(slices.Clone(args), "--mutant", string(sm.MutantMIDOrderIgnoresDst))...)
		res := r.BFS(opt)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		if len(res.Violations) == 0 {
			t.Fatalf("%v: mutant survived %d states (complete=%v)", args, res.States, res.Complete)
		}
		tr := res.Violations[0]
		if tr.Violation.Property != Validity || len(tr.Steps) != 17 {
			t.Fatalf("%v: caught by %s in %d steps, want validity in 17:\n%s", args, tr.Violation.Property, len(tr.Steps), tr)
		}
		var ve *checker.ViolationError
		if err := r.Replay(tr); !errors.As(err, &ve) || ve.Violation.Property != Validity {
			t.Fatalf("%v: replay: %v", args, err)
		}
		t.Logf("%v --mutant %s: %s after %d steps, %d states", args, sm.MutantMIDOrderIgnoresDst, tr.Violation.Property, len(tr.Steps), res.States)
		if os.Getenv("FTKERNEL_LONG") != "1" {
			t.Logf("%v: the correct protocol's complete run: FTKERNEL_LONG=1", args)
			continue
		}
		ok := modeltest.Build(t, "replica", args...).BFS(opt)
		modeltest.PinCounts(t, strings.Join(args, " ")+" --dfs --por", ok, "", c.states, c.transitions, 40)
	}
}

// TestMIDOrderSmallest: the smallest models that catch
// mid-order-ignores-dst, breadth-first, with the correct protocol passing
// each. Without a crash a replica of P0 that got both COMMITs before it
// ran logs them in one key's order, misses the first in its log, backs
// the task up and keeps it (backup-drained): on P0×2, P1, P2 (the
// smallest layout: P0 must be replicated and send the same tag to two
// workers) after 17 steps, and on the CLI's `--procs 3 --degree 2
// --replicate-rank0 --crashes 0` after 27. With one crash, validity after
// 9 steps on P0×2, P1, P2 (TestMutantsCaught).
func TestMIDOrderSmallest(t *testing.T) {
	for _, c := range []struct {
		args   string // ftcheck flags, or "" for p
		p      Params
		steps  int
		states int64 // of the correct protocol, complete
	}{
		{"", Params{Program: "master-worker", Procs: 3, Degrees: []int{2, 1, 1}, Network: env.FIFO}, 17, 984},
		{"--program master-worker --procs 3 --degree 2 --replicate-rank0 --crashes 0", Params{}, 27, 66_016},
	} {
		var mut, ok *checker.Result
		if c.args == "" {
			p := c.p
			ok = search(t, p, checker.Options{})
			p.Mutant = sm.MutantMIDOrderIgnoresDst
			mut = search(t, p, checker.Options{})
		} else {
			args := strings.Fields(c.args)
			ok = modeltest.Build(t, "replica", args...).BFS(checker.Options{Workers: 1})
			mut = modeltest.Build(t, "replica", append(args, "--mutant", string(sm.MutantMIDOrderIgnoresDst))...).BFS(checker.Options{Workers: 1})
		}
		if ok.Err != nil || mut.Err != nil {
			t.Fatal(ok.Err, mut.Err)
		}
		if len(mut.Violations) == 0 || mut.Violations[0].Violation.Property != BackupDrained || len(mut.Violations[0].Steps) != c.steps {
			t.Fatalf("%q %v: mutant: %v, want backup-drained after %d steps", c.args, c.p.Degrees, violations(mut), c.steps)
		}
		if len(ok.Violations) > 0 || !ok.Complete || ok.States != c.states {
			t.Fatalf("%q %v: correct protocol: %v, complete=%v, %d states, want %d", c.args, c.p.Degrees, violations(ok), ok.Complete, ok.States, c.states)
		}
		t.Logf("%q %v: %s after %d steps (%d states); correct: %d states", c.args, c.p.Degrees, BackupDrained, c.steps, mut.States, ok.States)
	}
}
