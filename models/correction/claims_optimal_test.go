package correction

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// closedFormChildren are the children of r in the paper's closed form of
// the optimal tree (§3.2.3): {r + R(i+o+L) | i ≥ s', R(s') > r, r' < P},
// with R(t) = 0 for t < 0, 1 for 0 ≤ t < 2o+L, R(t−o) + R(t−2o−L) after,
// s' the least s with R(s) > r, and i stepping by step from s' (1: every
// integer; o: one send every o time steps).
func closedFormChildren(P, L, o, r, step int) []int {
	memo := map[int]int{}
	var R func(t int) int
	R = func(t int) int {
		switch {
		case t < 0:
			return 0
		case t < 2*o+L:
			return 1
		}
		if v, ok := memo[t]; ok {
			return v
		}
		v := R(t-o) + R(t-2*o-L)
		memo[t] = v
		return v
	}
	s := 0
	for R(s) <= r {
		s++
	}
	var out []int
	for i := s; ; i += step {
		c := r + R(i+o+L)
		if c >= P {
			return out
		}
		out = append(out, c)
	}
}

// closedFormTree reports whether the closed form with the given step is a
// tree on P processes (every rank 1…P−1 listed exactly once as a child,
// no rank its own descendant, since children exceed their parent), and
// whether it equals the greedy LogP schedule's optimal tree
// (corrsm.Optimal), as lists of children in send order.
func closedFormTree(t testing.TB, P, L, o, step int) (tree, schedule bool) {
	top, err := corrsm.NewTopology(corrsm.Tree{Kind: corrsm.Optimal, L: L, O: o}, P)
	if err != nil {
		t.Fatal(err)
	}
	parents := make([]int, P)
	tree, schedule = true, true
	for r := range P {
		cs := closedFormChildren(P, L, o, r, step)
		for _, c := range cs {
			parents[c]++
		}
		var want []int
		for _, c := range top.Children(core.Rank(r)) {
			want = append(want, int(c))
		}
		schedule = schedule && slices.Equal(cs, want)
	}
	for r := 1; r < P; r++ {
		tree = tree && parents[r] == 1
	}
	return tree, schedule && tree
}

// TestSection323ClosedForm: for which (L, o) is §3.2.3's closed form a
// tree? Over L = 0 … 8, o = 1 … 4 and P = 1 … 100: stepping i by 1 it is
// a tree for every P only when o = 1; stepping i by o (one send per o) it
// is a tree, and equals the LogP schedule's optimal tree, for every P
// exactly when o divides L. When o ∤ L it is a tree only up to P = 4 … 7
// (the first P without is 5 … 8), and is the schedule only where it is a
// tree.
func TestSection323ClosedForm(t *testing.T) {
	for L := 0; L <= 8; L++ {
		for o := 1; o <= 4; o++ {
			var byOne, byO, sched, firstBad int
			for P := 1; P <= 100; P++ {
				if tr, _ := closedFormTree(t, P, L, o, 1); tr {
					byOne++
				}
				tr, sc := closedFormTree(t, P, L, o, o)
				if tr {
					byO++
				} else if firstBad == 0 {
					firstBad = P
				}
				if sc {
					sched++
				}
			}
			divides := L%o == 0
			msg := fmt.Sprintf("L=%d o=%d: a tree for %d of 100 P stepping by 1, %d stepping by o (first not: P=%d), equal to the schedule for %d", L, o, byOne, byO, firstBad, sched)
			if !divides {
				t.Log(msg)
			}
			if (o == 1) != (byOne == 100) {
				t.Errorf("stepping by 1: %s", msg)
			}
			if divides != (byO == 100) || divides != (sched == 100) {
				t.Errorf("stepping by o: %s", msg)
			}
		}
	}
}
