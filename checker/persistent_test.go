package checker

import (
	"fmt"
	"strings"
	"testing"
)

// pgrid is the grid with persistent sets: incX and incY touch different
// coordinates, so {incX} alone is persistent wherever it is enabled (no
// path of incY steps enables or disables it, and they commute).
type pgrid struct{ grid }

func (g *pgrid) Persistent(s pt, enabled []Action, buf []Action) []Action {
	for _, a := range enabled {
		if a.Kind == incX {
			return append(buf, a)
		}
	}
	return buf
}

// TestPersistentGrid: persistent sets visit 2N+1 of the (N+1)² states of the
// grid and keep the verdicts of a Stable invariant (X+Y ≥ k is reached and
// stays reached) and of the quiescence property.
func TestPersistentGrid(t *testing.T) {
	const n = 6
	stable := sumBelow(2*n - 1)
	stable.Stable = true
	g := &pgrid{grid{N: n, props: []Property[pt]{stable}}}
	full := DFS[pt](g, Options{})
	red := DFS[pt](g, Options{POR: true})
	if !red.POR || full.POR {
		t.Fatalf("POR used: %v (%s) / %v", red.POR, red.PORNote, full.POR)
	}
	if len(full.Violations) != 1 || len(red.Violations) != 1 {
		t.Fatalf("violations %d without POR, %d with", len(full.Violations), len(red.Violations))
	}
	g.props[0] = sumBelow(100)
	g.props[0].Stable = true
	full = DFS[pt](g, Options{})
	red = DFS[pt](g, Options{POR: true})
	if full.States != (n+1)*(n+1) || red.States != 2*n+1 || !red.Complete {
		t.Fatalf("states %d without POR, %d with (complete %v); want %d and %d", full.States, red.States, red.Complete, (n+1)*(n+1), 2*n+1)
	}
	if red.Slept != n {
		t.Fatalf("pruned %d actions, want %d (incY at (x, 0) for x < N)", red.Slept, n)
	}
}

// TestPersistentRefusals: the reduction is refused, with a note, for an
// invariant that is not Stable, for a model without persistent sets, and
// with lassos or symmetry.
func TestPersistentRefusals(t *testing.T) {
	g := &pgrid{grid{N: 3, props: []Property[pt]{sumBelow(100)}}}
	if r := DFS[pt](g, Options{POR: true}); r.POR || !strings.Contains(r.PORNote, "not marked Stable") {
		t.Fatalf("non-stable invariant: POR %v, note %q", r.POR, r.PORNote)
	}
	g.props[0].Stable = true
	if r := DFS[pt](&g.grid, Options{POR: true}); r.POR || !strings.Contains(r.PORNote, "no persistent sets") {
		t.Fatalf("plain grid: POR %v, note %q", r.POR, r.PORNote)
	}
	if r := DFS[pt](g, Options{POR: true, Lassos: true}); r.POR || !strings.Contains(r.PORNote, "lassos") {
		t.Fatalf("lassos: POR %v, note %q", r.POR, r.PORNote)
	}
}

// spinner is the ignoring problem in two processes: process 0 counts
// C = 0, 1, 2, 0, … forever (kind 1), process 1 sets Flag once (kind 2).
// {spin} is persistent everywhere (the two never interact), so without the
// stack proviso a persistent-set search would go round process 0's cycle
// and never set Flag.
type spinner struct{ props []Property[spin] }

type spin struct {
	C    int
	Flag bool
}

func (m *spinner) Name() string        { return "spinner" }
func (m *spinner) Init() []spin        { return []spin{{}} }
func (m *spinner) Quiescent(spin) bool { return false }
func (m *spinner) Actions(s spin, buf []Action) []Action {
	buf = append(buf, Action{Kind: 1})
	if !s.Flag {
		buf = append(buf, Action{Kind: 2})
	}
	return buf
}
func (m *spinner) Apply(s spin, a Action) (spin, error) {
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
func (m *spinner) Encode(b []byte, s spin) []byte {
	f := byte(0)
	if s.Flag {
		f = 1
	}
	return append(b, byte(s.C), f)
}
func (m *spinner) Describe(s spin, a Action) string { return fmt.Sprint(a.Kind) }
func (m *spinner) Properties() []Property[spin]     { return m.props }
func (m *spinner) Persistent(s spin, enabled []Action, buf []Action) []Action {
	return append(buf, enabled[0])
}

// TestPersistentProviso: the stack proviso expands a state of process 0's
// cycle fully, so the search sets Flag and finds the violation of "Flag is
// never set" (a Stable invariant), and visits all six states.
func TestPersistentProviso(t *testing.T) {
	m := &spinner{props: []Property[spin]{{Name: "NoFlag", Kind: Invariant, Stable: true,
		Check: func(s spin) error {
			if s.Flag {
				return fmt.Errorf("flag set at C=%d", s.C)
			}
			return nil
		}}}}
	r := DFS[spin](m, Options{POR: true})
	if !r.POR || len(r.Violations) != 1 || r.Reexpanded == 0 {
		t.Fatalf("POR %v (%s), %d violations, %d proviso expansions; want a violation found through the proviso", r.POR, r.PORNote, len(r.Violations), r.Reexpanded)
	}
	m.props[0].Check = func(spin) error { return nil }
	r = DFS[spin](m, Options{POR: true})
	if r.States != 6 || !r.Complete {
		t.Fatalf("%d states (complete %v), want all 6", r.States, r.Complete)
	}
}
