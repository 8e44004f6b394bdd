package twophase

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
)

// Public TLC counts of TwoPhase.tla: distinct states, states generated.
var tlcCounts = map[int][2]int64{
	3: {288, 1146},
	5: {8832, 58146},
	6: {50816, 402306},
	7: {296448, 2744706},
	8: {1745408, 18507778},
}

func checkCounts(t *testing.T, rm int, workers ...int) {
	t.Helper()
	m, err := New(rm)
	if err != nil {
		t.Fatal(err)
	}
	want := tlcCounts[rm]
	for _, w := range workers {
		r := checker.BFS[State](m, checker.Options{Workers: w})
		if r.Err != nil || !r.Complete || len(r.Violations) != 0 {
			t.Fatalf("rm=%d workers=%d: err=%v complete=%v violations=%v", rm, w, r.Err, r.Complete, r.Violations)
		}
		if r.States != want[0] || r.Transitions != want[1] {
			t.Errorf("rm=%d workers=%d: %d distinct / %d generated, want %d / %d",
				rm, w, r.States, r.Transitions, want[0], want[1])
		}
	}
}

func TestCounts(t *testing.T) {
	for _, rm := range []int{3, 5, 6} {
		t.Run(fmt.Sprint("RM=", rm), func(t *testing.T) { checkCounts(t, rm, 1, 2) })
	}
}

func TestCountsRM7(t *testing.T) {
	if testing.Short() {
		t.Skip("RM=7 in -short mode")
	}
	checkCounts(t, 7, 0)
}

func TestBrokenCommit(t *testing.T) {
	m := &Model{RM: 3, BrokenCommit: true}
	var first *checker.Trace
	for _, w := range []int{1, 2} {
		r := checker.BFS[State](m, checker.Options{Workers: w})
		if r.Stop != checker.StopViolation || len(r.Violations) != 1 {
			t.Fatalf("workers=%d: stop=%s violations=%d", w, r.Stop, len(r.Violations))
		}
		tr := r.Violations[0]
		if first == nil {
			first = tr
		} else if !reflect.DeepEqual(first, tr) {
			t.Fatalf("counterexample depends on workers")
		}
	}
	// Shortest: one RM must commit (TMCommit, then receive Commit) and
	// another abort: 3 steps, in the order a sequential BFS finds them.
	var text []string
	for _, s := range first.Steps {
		text = append(text, s.Text)
	}
	if want := []string{"TMCommit", "RMChooseToAbort(r0)", "RMRcvCommitMsg(r1)"}; !reflect.DeepEqual(text, want) {
		t.Fatalf("steps %q, want %q", text, want)
	}
	want := checker.Violation{Property: "TCConsistent", Kind: "invariant", Message: "r1 committed while r0 aborted", Steps: 3}
	if *first.Violation != want {
		t.Fatalf("violation %+v", first.Violation)
	}
	states, err := checker.Replay[State](m, first)
	var ve *checker.ViolationError
	if !errors.As(err, &ve) || ve.Violation != want || len(states) != 4 {
		t.Fatalf("replay: %v (%d states)", err, len(states))
	}
	// The correct model rejects the broken trace's first step.
	_, err = checker.Replay[State](&Model{RM: 3}, first)
	if !errors.Is(err, checker.ErrNotEnabled) {
		t.Fatalf("correct model replayed TMCommit: %v", err)
	}
}

// TestMutantsCaughtByTheirProperty: each mutant is caught by exactly one
// of the two invariants, searched to completion: AbortTypo (TMAbort writes
// a tmState outside the type) only by TPTypeOK, in 1 step; BrokenCommit
// only by TCConsistent, in 3. The correct model violates neither.
func TestMutantsCaughtByTheirProperty(t *testing.T) {
	for _, c := range []struct {
		m        *Model
		property string
		steps    []string
		message  string
	}{
		{&Model{RM: 3, AbortTypo: true}, "TPTypeOK", []string{"TMAbort"}, "tmState 3"},
		{&Model{RM: 3, BrokenCommit: true}, "TCConsistent", []string{"TMCommit", "RMChooseToAbort(r0)", "RMRcvCommitMsg(r1)"}, "r1 committed while r0 aborted"},
		{&Model{RM: 3}, "", nil, ""},
	} {
		r := checker.BFS[State](c.m, checker.Options{Workers: 1, ContinueAfterViolation: true})
		if r.Err != nil || !r.Complete {
			t.Fatalf("%s: err=%v complete=%v", c.m.Name(), r.Err, r.Complete)
		}
		if c.property == "" {
			if len(r.Violations) != 0 || r.States != tlcCounts[3][0] {
				t.Fatalf("%s: %d violations, %d states", c.m.Name(), len(r.Violations), r.States)
			}
			continue
		}
		if len(r.Violations) != 1 {
			t.Fatalf("%s: %d properties violated, want only %s", c.m.Name(), len(r.Violations), c.property)
		}
		tr := r.Violations[0]
		var text []string
		for _, s := range tr.Steps {
			text = append(text, s.Text)
		}
		want := checker.Violation{Property: c.property, Kind: "invariant", Message: c.message, Steps: len(c.steps)}
		if *tr.Violation != want || !reflect.DeepEqual(text, c.steps) {
			t.Fatalf("%s: %+v after %q, want %+v after %q", c.m.Name(), tr.Violation, text, want, c.steps)
		}
		var ve *checker.ViolationError
		if _, err := checker.Replay[State](c.m, tr); !errors.As(err, &ve) || ve.Violation != want {
			t.Fatalf("%s: replay: %v", c.m.Name(), err)
		}
	}
}

func TestWalkQuiesces(t *testing.T) {
	m, _ := New(4)
	r := checker.Walk[State](m, checker.WalkOptions{Walks: 200, Seed: 1, MaxSteps: 1000})
	if r.Err != nil || r.Violation != nil || r.Walks != 200 {
		t.Fatalf("err=%v violation=%v", r.Err, r.Violation)
	}
	for i, w := range r.PerWalk {
		// Every RM moves at most twice (prepare, then commit or abort) and
		// the TM receives at most 4 Prepared and decides once.
		if !w.Quiescent && w.Steps < 1000 || w.Steps > 1000 {
			t.Fatalf("walk %d: %+v", i, w)
		}
	}
}

func TestApplyRejects(t *testing.T) {
	m, _ := New(3)
	for _, a := range []checker.Action{
		{Kind: KindTMCommit}, // not all prepared
		{Kind: KindRMRcvCommitMsg, P: 0},
		{Kind: KindRMPrepare, P: 3},
		{Kind: 99},
	} {
		if _, err := m.Apply(0, a); err == nil {
			t.Errorf("%v accepted in the initial state", a)
		}
	}
	if _, err := New(16); err == nil {
		t.Error("rm=16 accepted")
	}
}
