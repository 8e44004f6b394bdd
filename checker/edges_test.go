package checker

import (
	"fmt"
	"testing"
)

// wrap is a toy model whose only violating edges lead to states already
// visited, by every search order: X counts 0, 1, 2, 0, … (kind 1, "tick")
// and Y is set once (kind 2, "set"). The transition property NoWrap fails
// exactly on the ticks from X=2 back to X=0, which return to (0, Y): the
// initial state, or the state one set away from it, both found before any
// X=2 state is expanded. A search that checks transition properties only on
// edges to new states misses the violation.
//
// tick and set touch different coordinates, so they are independent and
// NoWrap (which reads only the tick's own coordinate: ReadsStep) keeps its
// verdict across them; {tick} is a persistent set wherever it is enabled.
// So wrap enables both reductions (BFS sleep sets, DFS persistent sets).
type wrap struct{ props []Property[spin] }

func (m *wrap) Name() string        { return "wrap" }
func (m *wrap) Init() []spin        { return []spin{{}} }
func (m *wrap) Quiescent(spin) bool { return false }
func (m *wrap) Actions(s spin, buf []Action) []Action {
	buf = append(buf, Action{Kind: 1})
	if !s.Flag {
		buf = append(buf, Action{Kind: 2})
	}
	return buf
}
func (m *wrap) Apply(s spin, a Action) (spin, error) {
	switch {
	case a.Kind == 1:
		s.C = (s.C + 1) % 3
	case a.Kind == 2 && !s.Flag:
		s.Flag = true
	default:
		return s, fmt.Errorf("%v not enabled", a)
	}
	return s, nil
}
func (m *wrap) Encode(b []byte, s spin) []byte   { return (&spinner{}).Encode(b, s) }
func (m *wrap) Describe(s spin, a Action) string { return fmt.Sprint(a.Kind) }
func (m *wrap) Properties() []Property[spin]     { return m.props }
func (m *wrap) Independent(s spin, a, b Action) bool {
	return a.Kind != b.Kind
}
func (m *wrap) Persistent(s spin, enabled []Action, buf []Action) []Action {
	return append(buf, enabled[0])
}

// noWrap fails on a tick from X=2 to X=0.
var noWrap = Property[spin]{Name: "NoWrap", Kind: Transition, Reads: ReadsStep,
	CheckStep: func(p spin, a Action, n spin) error {
		if a.Kind == 1 && p.C == 2 && n.C == 0 {
			return fmt.Errorf("X wrapped from 2 to 0")
		}
		return nil
	}}

// TestTransitionPropertyOnEveryEdge: every strategy reports NoWrap, whose
// only violating edges lead to already-visited states (transition
// properties are checked on every edge). The reductions must be in effect
// (Result.POR), or the test would not test them.
func TestTransitionPropertyOnEveryEdge(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  Options
		por  bool
	}{
		{"bfs", Options{Workers: 2}, false},
		{"bfs-1-worker", Options{Workers: 1}, false},
		{"dfs", Options{Mode: DepthFirst}, false},
		{"bfs-sleep-sets", Options{Workers: 2, POR: true}, true},
		{"dfs-persistent-sets", Options{Mode: DepthFirst, POR: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &wrap{props: []Property[spin]{noWrap}}
			r := Search[spin](m, c.opt)
			if r.POR != c.por {
				t.Fatalf("POR %v (%s), want %v", r.POR, r.PORNote, c.por)
			}
			if r.Err != nil || len(r.Violations) != 1 || r.Violations[0].Violation.Property != "NoWrap" {
				t.Fatalf("err %v, violations %v: the wrap edge (to a visited state) was not checked", r.Err, r.Violations)
			}
			// The counterexample replays to the violation.
			tr := r.Violations[0]
			s := m.Init()[tr.Init]
			var prev spin
			for _, st := range tr.Steps {
				prev = s
				var err error
				if s, err = m.Apply(s, st.Action); err != nil {
					t.Fatal(err)
				}
			}
			if last := tr.Steps[len(tr.Steps)-1].Action; noWrap.CheckStep(prev, last, s) == nil {
				t.Fatalf("counterexample %v does not end with a wrap", tr.Steps)
			}
			if c.opt.Mode == BreadthFirst && !c.por && len(tr.Steps) != 3 {
				t.Fatalf("BFS counterexample has %d steps, want the shortest (3)", len(tr.Steps))
			}
		})
	}
}

// TestTransitionPropertyOnStutter: a violating step that leaves the state
// unchanged (a self-loop, skipped before the visited-set lookup) is still
// checked, by every strategy.
func TestTransitionPropertyOnStutter(t *testing.T) {
	noTick := Property[spin]{Name: "NoSetAtTwo", Kind: Transition, Reads: ReadsStep,
		CheckStep: func(p spin, a Action, n spin) error {
			if p == n && a.Kind == 3 {
				return fmt.Errorf("stutter")
			}
			return nil
		}}
	for _, opt := range []Options{{Workers: 2}, {Mode: DepthFirst}} {
		m := &stutter{wrap{props: []Property[spin]{noTick}}}
		if r := Search[spin](m, opt); len(r.Violations) != 1 {
			t.Fatalf("%v: violations %v, err %v", opt.Mode, r.Violations, r.Err)
		}
	}
}

// stutter is wrap with a third action (kind 3) at X=1 that changes nothing.
type stutter struct{ wrap }

func (m *stutter) Actions(s spin, buf []Action) []Action {
	buf = m.wrap.Actions(s, buf)
	if s.C == 1 {
		buf = append(buf, Action{Kind: 3})
	}
	return buf
}
func (m *stutter) Apply(s spin, a Action) (spin, error) {
	if a.Kind == 3 {
		if s.C != 1 {
			return s, fmt.Errorf("%v not enabled", a)
		}
		return s, nil
	}
	return m.wrap.Apply(s, a)
}
