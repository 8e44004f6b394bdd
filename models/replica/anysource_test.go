package replica

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// TestAnySourceCounterexample is §4.3: with ANY_SOURCE receives the
// replicas of P_2 may deliver m_1 and m_2 in different orders, so total
// order fails (the smallest run: P_0 and P_1 unreplicated, P_2 with two
// replicas, no crash; 10 steps: both replicas have delivered both
// messages, in opposite orders). With the sum (gather-sum-any-source) the outputs
// still agree and equal the unreplicated one: the paper's argument holds
// for the output. With x1 − x2 (gather-diff-any-source) equivalence fails
// too: the two replicas output 1 − 20 and 20 − 1.
func TestAnySourceCounterexample(t *testing.T) {
	for _, c := range []struct {
		program     string
		equivalence bool // whether equivalence is violated
	}{
		{"gather-sum-any-source", false},
		{"gather-diff-any-source", true},
	} {
		for _, net := range []env.Network{env.FIFO, env.Unordered} {
			p := Params{Program: c.program, Procs: 3, Degrees: []int{1, 1, 2}, Network: net}
			res := search(t, p, checker.Options{ContinueAfterViolation: true})
			if !res.Complete {
				t.Fatalf("%s: incomplete", c.program)
			}
			got := map[string]int{}
			for _, v := range res.Violations {
				got[v.Violation.Property] = len(v.Steps)
				t.Logf("%s %v: %s after %d steps: %s", c.program, net, v.Violation.Property, len(v.Steps), v.Violation.Message)
			}
			if got[TotalOrder] != 10 {
				t.Errorf("%s %v: total order violated after %d steps, want 10", c.program, net, got[TotalOrder])
			}
			if _, eq := got[Equivalence]; eq != c.equivalence {
				t.Errorf("%s %v: equivalence violated = %v, want %v", c.program, net, eq, c.equivalence)
			}
			for prop := range got {
				if prop != TotalOrder && prop != Equivalence {
					t.Errorf("%s %v: unexpected violation of %s", c.program, net, prop)
				}
			}
		}
	}
	// The same with explicit sources holds.
	res := search(t, Params{Program: "gather-sum", Procs: 3, Degrees: []int{1, 1, 2}}, checker.Options{})
	if len(res.Violations) > 0 || !res.Complete {
		t.Fatalf("gather-sum: %v", res.Violations[0].Violation)
	}
}
