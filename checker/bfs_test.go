package checker

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func actionKinds(tr *Trace) []uint8 {
	var k []uint8
	for _, s := range tr.Steps {
		k = append(k, s.Action.Kind)
	}
	return k
}

func TestBFSCountsGrid(t *testing.T) {
	for _, w := range []int{1, 2, 4} {
		r := BFS[pt](&grid{N: 4}, Options{Workers: w})
		if r.Err != nil || r.States != 25 || r.Transitions != 41 || r.Depth != 8 || !r.Complete || r.Stop != StopDone {
			t.Errorf("workers=%d: states=%d transitions=%d depth=%d complete=%v stop=%s err=%v; want 25 41 8 true done",
				w, r.States, r.Transitions, r.Depth, r.Complete, r.Stop, r.Err)
		}
		if len(r.Violations) != 0 {
			t.Errorf("workers=%d: violations %v", w, r.Violations)
		}
		if r.CollisionProb != 25*16/0x1p64 || r.CollisionBound != 25*25/0x1p65 {
			t.Errorf("collision estimates %g %g", r.CollisionProb, r.CollisionBound)
		}
	}
}

func TestBFSDuplicateInits(t *testing.T) {
	g := &grid{N: 2, inits: []pt{{}, {}, {2, 2}}}
	r := BFS[pt](g, Options{Workers: 2})
	// 3 initial states generated, 2 distinct; then 2·2·3 = 12 successors.
	if r.States != 9 || r.Transitions != 3+12 {
		t.Fatalf("states=%d transitions=%d, want 9 15", r.States, r.Transitions)
	}
}

func TestBFSInvariantShortest(t *testing.T) {
	var first *Result
	for _, w := range []int{1, 2, 3, 8} {
		r := BFS[pt](&grid{N: 6, props: []Property[pt]{sumBelow(5)}}, Options{Workers: w})
		if r.Stop != StopViolation || r.Complete || len(r.Violations) != 1 {
			t.Fatalf("workers=%d: stop=%s complete=%v violations=%d", w, r.Stop, r.Complete, len(r.Violations))
		}
		tr := r.Violations[0]
		want := &Violation{Property: "SumBelow", Kind: "invariant", Message: "x+y=5", Steps: 5}
		if !reflect.DeepEqual(tr.Violation, want) {
			t.Fatalf("violation %+v, want %+v", tr.Violation, want)
		}
		if got := actionKinds(tr); !reflect.DeepEqual(got, []uint8{1, 1, 1, 1, 1}) {
			t.Fatalf("steps %v, want five incX (first in BFS order)", got)
		}
		if tr.Steps[4].Text != "incX at (4,0)" {
			t.Fatalf("text %q", tr.Steps[4].Text)
		}
		// Levels 0..5 are expanded: 1+2+3+4+5+6 = 21 states with 2 actions
		// each; level 6 is not inserted since the search stops.
		if r.States != 21 || r.Transitions != 1+42 || r.Depth != 5 {
			t.Fatalf("states=%d transitions=%d depth=%d, want 21 43 5", r.States, r.Transitions, r.Depth)
		}
		if first == nil {
			first = r
		} else if !reflect.DeepEqual(first.Violations, r.Violations) {
			t.Fatalf("workers=%d: counterexample differs", w)
		}
	}
}

func TestBFSTransitionProperty(t *testing.T) {
	r := BFS[pt](&grid{N: 5, props: []Property[pt]{xStepBelow(3)}}, Options{Workers: 2})
	if len(r.Violations) != 1 {
		t.Fatalf("violations %d", len(r.Violations))
	}
	v := r.Violations[0]
	if v.Violation.Kind != "transition" || v.Violation.Steps != 3 || !reflect.DeepEqual(actionKinds(v), []uint8{1, 1, 1}) {
		t.Fatalf("got %v", v)
	}
}

func TestBFSQuiescence(t *testing.T) {
	r := BFS[int](&fork{props: []Property[int]{endsAtThree}}, Options{Workers: 2})
	if len(r.Violations) != 1 {
		t.Fatalf("violations %d", len(r.Violations))
	}
	v := r.Violations[0]
	// State 0 is not quiescent, so the first violation is the dead end 10,
	// one step away.
	if v.Violation.Steps != 1 || v.Violation.Message != "ended at 10" || v.Steps[0].Action.Kind != 2 {
		t.Fatalf("got %v", v)
	}
}

func TestBFSContinueAfterViolation(t *testing.T) {
	g := &grid{N: 6, props: []Property[pt]{sumBelow(4), xStepBelow(2)}}
	r := BFS[pt](g, Options{Workers: 2, ContinueAfterViolation: true})
	if len(r.Violations) != 2 || r.Stop != StopViolation {
		t.Fatalf("violations %d stop %s", len(r.Violations), r.Stop)
	}
	if a, b := r.Violations[0].Violation, r.Violations[1].Violation; a.Property != "XStep" || a.Steps != 2 || b.Property != "SumBelow" || b.Steps != 4 {
		t.Fatalf("got %v / %v", a, b)
	}
}

func TestBFSExpectFailFilter(t *testing.T) {
	p := sumBelow(3)
	p.ExpectFail = true
	g := &grid{N: 3, props: []Property[pt]{p}}
	if r := BFS[pt](g, Options{}); len(r.Violations) != 0 || !r.Complete {
		t.Fatalf("ExpectFail property checked by default: %v", r.Violations)
	}
	if r := BFS[pt](g, Options{Properties: []string{"SumBelow"}}); len(r.Violations) != 1 || r.Violations[0].Violation.Steps != 3 {
		t.Fatalf("named ExpectFail property not checked: %+v", r.Violations)
	}
	if r := BFS[pt](g, Options{Properties: []string{"Nope"}}); r.Err == nil || r.Stop != StopError {
		t.Fatalf("unknown property accepted")
	}
}

func TestBFSApplyError(t *testing.T) {
	r := BFS[pt](&grid{N: 3, badApply: true}, Options{Workers: 2})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "boom") || r.Stop != StopError || r.Complete {
		t.Fatalf("err=%v stop=%s", r.Err, r.Stop)
	}
}

func TestBFSBounds(t *testing.T) {
	r := BFS[pt](&grid{N: 10}, Options{MaxDepth: 3, Workers: 2})
	// Depths 0..3 hold 1+2+3+4 states; depths 0..2 (6 states) are expanded.
	if r.States != 10 || r.Transitions != 13 || r.Complete || r.Stop != StopMaxDepth || r.Depth != 3 {
		t.Fatalf("states=%d transitions=%d complete=%v stop=%s depth=%d", r.States, r.Transitions, r.Complete, r.Stop, r.Depth)
	}
	r = BFS[pt](&grid{N: 10}, Options{MaxStates: 5, Workers: 2})
	if r.States != 6 || r.Complete || r.Stop != StopMaxStates {
		t.Fatalf("states=%d complete=%v stop=%s", r.States, r.Complete, r.Stop)
	}
	// A depth bound at the diameter does not cut anything.
	r = BFS[pt](&grid{N: 2}, Options{MaxDepth: 4})
	if !r.Complete || r.States != 9 {
		t.Fatalf("complete=%v states=%d", r.Complete, r.States)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r = BFS[pt](&grid{N: 10}, Options{Context: ctx})
	if r.Stop != StopCanceled || !errors.Is(r.Err, context.Canceled) || r.Complete {
		t.Fatalf("stop=%s err=%v", r.Stop, r.Err)
	}
}

func TestBFSProgress(t *testing.T) {
	var last Stats
	calls := 0
	r := BFS[pt](&grid{N: 30}, Options{Progress: func(s Stats) { last = s; calls++ }, ProgressEvery: time.Millisecond})
	if calls == 0 || last.Distinct != r.States || last.Generated != r.Transitions {
		t.Fatalf("calls=%d last=%+v result %d/%d", calls, last, r.States, r.Transitions)
	}
}
