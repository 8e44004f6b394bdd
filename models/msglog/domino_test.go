package msglog

import (
	"slices"
	"strings"
	"testing"

	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// fig22Pattern is the pattern of Fig. 5.1's failure-free run (the default
// schedule, the figure's order) with pl's checkpoints.
func fig22Pattern(t *testing.T, pl Placement) Pattern {
	t.Helper()
	p := Params{Program: "fig51", Procs: 3, Logger: el.Centralized, F: 1}
	r, err := Simulate(p, Crash{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return PatternOf(r.Final, ml.Fig51(), pl)
}

// TestDominoFig22 is §2.1.3's domino effect on Fig. 2.2's pattern: with
// uncoordinated checkpoints alone, of the 3 cuts of checkpoints (P0:
// initial, Ck_{0,0} after m1, Ck_{0,1} after m5; P1: Ck_{1,0}; P2:
// initial) the only one without an orphan message is the initial state.
// The latest checkpoints have m1 and m5 as orphans, Ck_{0,0} still m1.
func TestDominoFig22(t *testing.T) {
	pat := fig22Pattern(t, Fig22Placement)
	cuts := pat.Cuts()
	for _, c := range cuts {
		t.Logf("%s: orphans %v", pat.CutString(c.Ck, startsWithCheckpoint(ml.Fig51())), c.Orphans)
	}
	if got, want := len(cuts), 3; got != want {
		t.Fatalf("%d cuts, want %d (checkpoints %v)", got, want, pat.Checkpoints)
	}
	lines := pat.RecoveryLines()
	if !slices.EqualFunc(lines, [][]int{{0, 0, 0}}, slices.Equal) {
		t.Fatalf("recovery lines %v, want only the initial state [[0 0 0]]", lines)
	}
	latest := cuts[len(cuts)-1]
	if got := strings.Join(latest.Orphans, " "); got != "p1→p0#1 p1→p0#2" {
		t.Fatalf("the latest checkpoints' orphans: %q, want m1 and m5 (p1→p0#1 p1→p0#2)", got)
	}
}

// TestDominoControl: the same run with every process checkpointing after
// each of its deliveries and P1 and P2 also at their ends has its latest
// checkpoints as a recovery line, so the search does not always answer
// the initial state.
func TestDominoControl(t *testing.T) {
	pat := fig22Pattern(t, Placement{Every: 1})
	for _, q := range []int{1, 2} {
		pat.Checkpoints[q] = append(pat.Checkpoints[q], len(pat.Events[q]))
	}
	lines := pat.RecoveryLines()
	if len(lines) == 0 || !slices.Equal(lines[len(lines)-1], pat.Latest()) {
		t.Fatalf("recovery lines %v: want the latest checkpoints %v among them", lines, pat.Latest())
	}
}
