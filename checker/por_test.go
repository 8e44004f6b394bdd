package checker

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// comps is a toy concurrent system for partial-order reduction: K
// components, each a small random automaton over states 0..L-1. A local
// action (kind 1, P = component, I = label) moves one component; a sync
// action (kind 2, P < Q components, I = label) moves two at once. Two
// actions are independent when they touch disjoint components: they then
// commute, and neither changes the other's enabledness or target.
type comps struct {
	K, L  int
	local [][][]int      // local[c][from] = targets, indexed by label
	sync  map[[3]int]int // (c1, c2, from1*L+from2) → combined target, one label
	props []Property[[]int8]
	noInd bool
}

func newComps(seed uint64, k, l int) *comps {
	r := rand.New(rand.NewPCG(seed, 7))
	m := &comps{K: k, L: l, sync: map[[3]int]int{}}
	m.local = make([][][]int, k)
	for c := range k {
		m.local[c] = make([][]int, l)
		for s := range l {
			for range r.IntN(3) {
				m.local[c][s] = append(m.local[c][s], r.IntN(l))
			}
		}
	}
	for range k {
		c1 := r.IntN(k)
		c2 := r.IntN(k)
		if c1 == c2 {
			continue
		}
		c1, c2 = min(c1, c2), max(c1, c2)
		for f := range l * l {
			if r.IntN(3) == 0 {
				m.sync[[3]int{c1, c2, f}] = r.IntN(l * l)
			}
		}
	}
	return m
}

func (m *comps) Name() string   { return fmt.Sprintf("comps k=%d l=%d", m.K, m.L) }
func (m *comps) Init() [][]int8 { return [][]int8{make([]int8, m.K)} }
func (m *comps) Quiescent(s []int8) bool {
	var buf [64]Action
	return len(m.Actions(s, buf[:0])) == 0
}
func (m *comps) Describe(s []int8, a Action) string { return a.String() }
func (m *comps) Properties() []Property[[]int8]     { return m.props }
func (m *comps) Encode(b []byte, s []int8) []byte {
	for _, v := range s {
		b = append(b, byte(v))
	}
	return b
}

func (m *comps) Actions(s []int8, buf []Action) []Action {
	for c := range m.K {
		for i := range m.local[c][s[c]] {
			buf = append(buf, Action{Kind: 1, P: int32(c), I: int32(i)})
		}
	}
	for c1 := range m.K {
		for c2 := c1 + 1; c2 < m.K; c2++ {
			if _, ok := m.sync[[3]int{c1, c2, int(s[c1])*m.L + int(s[c2])}]; ok {
				buf = append(buf, Action{Kind: 2, P: int32(c1), Q: int32(c2)})
			}
		}
	}
	return buf
}

func (m *comps) Apply(s []int8, a Action) ([]int8, error) {
	n := append([]int8(nil), s...)
	switch a.Kind {
	case 1:
		t := m.local[a.P][s[a.P]]
		if int(a.I) >= len(t) {
			return nil, fmt.Errorf("%v not enabled", a)
		}
		n[a.P] = int8(t[a.I])
	case 2:
		t, ok := m.sync[[3]int{int(a.P), int(a.Q), int(s[a.P])*m.L + int(s[a.Q])}]
		if !ok {
			return nil, fmt.Errorf("%v not enabled", a)
		}
		n[a.P], n[a.Q] = int8(t/m.L), int8(t%m.L)
	}
	return n, nil
}

func touches(a Action) []int32 {
	if a.Kind == 2 {
		return []int32{a.P, a.Q}
	}
	return []int32{a.P}
}

// Independent: disjoint components.
func (m *comps) Independent(_ []int8, a, b Action) bool {
	if m.noInd {
		return false
	}
	for _, x := range touches(a) {
		for _, y := range touches(b) {
			if x == y {
				return false
			}
		}
	}
	return true
}

// compsProps: an invariant on a pair of components, a quiescence property,
// and a local transition property (reads the moved components only).
func compsProps(r *rand.Rand, k, l int) []Property[[]int8] {
	c1, c2 := r.IntN(k), r.IntN(k)
	v1, v2 := int8(r.IntN(l)), int8(r.IntN(l))
	c3, from, to := int32(r.IntN(k)), int8(r.IntN(l)), int8(r.IntN(l))
	return []Property[[]int8]{
		{Name: "pair", Kind: Invariant, Check: func(s []int8) error {
			if s[c1] == v1 && s[c2] == v2 && c1 != c2 {
				return fmt.Errorf("pair %d=%d %d=%d", c1, v1, c2, v2)
			}
			return nil
		}},
		{Name: "end", Kind: Quiescence, Check: func(s []int8) error {
			if s[c2] == v1 {
				return fmt.Errorf("ends with %d=%d", c2, v1)
			}
			return nil
		}},
		{Name: "step", Kind: Transition, Reads: ReadsStep, CheckStep: func(p []int8, a Action, n []int8) error {
			for _, c := range touches(a) {
				if c == c3 && p[c] == from && n[c] == to {
					return fmt.Errorf("component %d moved %d→%d", c, from, to)
				}
			}
			return nil
		}},
	}
}

func violated(r *Result) map[string]bool {
	out := map[string]bool{}
	for _, tr := range r.Violations {
		out[tr.Violation.Property] = true
	}
	return out
}

// TestPORCube: with every action independent, sleep sets take exactly one
// transition into each state.
func TestPORCube(t *testing.T) {
	m := &comps{K: 4, L: 4, sync: map[[3]int]int{}}
	m.local = make([][][]int, m.K)
	for c := range m.K {
		m.local[c] = make([][]int, m.L)
		for s := range m.L - 1 {
			m.local[c][s] = []int{s + 1}
		}
	}
	full := BFS(m, Options{Workers: 1})
	por := BFS(m, Options{Workers: 2, POR: true})
	if !por.POR || full.States != 256 || por.States != 256 {
		t.Fatalf("por=%v states %d/%d, want 256", por.POR, full.States, por.States)
	}
	if por.Transitions != por.States || por.Transitions+por.Slept != full.Transitions {
		t.Fatalf("transitions: full %d, por %d + slept %d, want por = states = %d", full.Transitions, por.Transitions, por.Slept, por.States)
	}
}

// TestPORRandom compares reduced and unreduced searches on random
// component systems: same states, same violated properties (every
// property checked to its first violation), same counts with 1 and 2
// workers, and reduced + slept = unreduced transitions.
func TestPORRandom(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 120
	}
	var gen, red int64
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 11))
		m := newComps(seed, 3+r.IntN(3), 2+r.IntN(3))
		m.props = compsProps(r, m.K, m.L)
		opt := Options{Workers: 1, ContinueAfterViolation: true}
		full := BFS(m, opt)
		opt.POR = true
		p1 := BFS(m, opt)
		opt.Workers = 2
		p2 := BFS(m, opt)
		if full.Err != nil || p1.Err != nil || !p1.POR {
			t.Fatalf("seed %d: %v %v por=%v", seed, full.Err, p1.Err, p1.POR)
		}
		if full.States != p1.States {
			t.Fatalf("seed %d: states %d without POR, %d with", seed, full.States, p1.States)
		}
		if p1.Transitions+p1.Slept != full.Transitions {
			t.Fatalf("seed %d: %d + %d slept != %d", seed, p1.Transitions, p1.Slept, full.Transitions)
		}
		if p1.States != p2.States || p1.Transitions != p2.Transitions || p1.Depth != p2.Depth {
			t.Fatalf("seed %d: worker-dependent counts %d/%d/%d vs %d/%d/%d", seed, p1.States, p1.Transitions, p1.Depth, p2.States, p2.Transitions, p2.Depth)
		}
		fv, pv := violated(full), violated(p1)
		if fmt.Sprint(fv) != fmt.Sprint(pv) {
			t.Fatalf("seed %d: violated %v without POR, %v with", seed, fv, pv)
		}
		for _, tr := range p1.Violations {
			if _, err := Replay(m, tr); err == nil {
				t.Fatalf("seed %d: counterexample of %s does not replay to a violation", seed, tr.Violation.Property)
			}
		}
		gen += full.Transitions
		red += p1.Transitions
	}
	t.Logf("%d models: %d transitions without POR, %d with", n, gen, red)
}

// TestPORFallback: POR is off, with a note, when a transition property
// does not declare what it reads or the model has no relation.
func TestPORFallback(t *testing.T) {
	m := newComps(1, 3, 3)
	m.props = compsProps(rand.New(rand.NewPCG(1, 1)), 3, 3)
	m.props[2].Reads = ReadsAnything
	if r := BFS(m, Options{POR: true}); r.POR || r.PORNote == "" {
		t.Fatalf("POR %v note %q", r.POR, r.PORNote)
	}
	if r := BFS(&grid{N: 3}, Options{POR: true}); r.POR || r.PORNote == "" {
		t.Fatalf("grid: POR %v note %q", r.POR, r.PORNote)
	}
}
