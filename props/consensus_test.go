package props

import (
	"errors"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// scriptProposals lists q's proposals: the input values of its calls made.
func scriptProposals(w *env.World, q core.Rank) []core.Value {
	var vs []core.Value
	for _, in := range w.CallsMade(q) {
		if s := in.(*script); s.in != 0 {
			vs = append(vs, s.in)
		}
	}
	return vs
}

func TestRejectProposed(t *testing.T) {
	// p proposes v (for no instance in particular) and decides d for a.
	propose := func(p core.Rank, v num, a uint64, d num) *script {
		s := input(0, v)
		if d != 0 {
			s.effs = []core.Effect{dec(a, d)}
		}
		return s
	}
	three := func(ss map[core.Rank][]*script, steps ...op) run { return run{n: 3, calls: ss, steps: steps} }
	filler := func(v core.Value) bool { return v == num(7) }
	checkCases(t, Proposed("validity", "", scriptProposals, filler, nil), []rejectCase{
		{"first rank decides what no one proposed", three(map[core.Rank][]*script{0: {propose(0, 1, 0, 9)}}, call(0)), []string{"p0 decided 9 for a=0"}},
		{"last rank decides what no one proposed", three(map[core.Rank][]*script{2: {propose(2, 1, 3, 9)}}, call(2)), []string{"p2 decided 9 for a=3"}},
		{"a proposal not made yet", three(map[core.Rank][]*script{0: {propose(0, 0, 0, 9)}, 2: {propose(2, 9, 0, 0)}}, call(0)), []string{"p0 decided 9"}},
		{"the last rank's proposal, in another instance", three(map[core.Rank][]*script{0: {propose(0, 1, 5, 3)}, 2: {propose(2, 3, 0, 0)}}, call(2), call(0)), nil},
		{"the first rank's proposal", three(map[core.Rank][]*script{0: {propose(0, 2, 0, 0)}, 2: {propose(2, 1, 1, 2)}}, call(0), call(2)), nil},
		{"a crashed rank's proposal", three(map[core.Rank][]*script{2: {propose(2, 2, 0, 0)}, 1: {propose(1, 1, 0, 2)}}, call(2), crash(2), call(1)), nil},
		{"the filler", three(map[core.Rank][]*script{2: {propose(2, 1, 0, 7)}}, call(2)), nil},
	})
	checkCases(t, Proposed("validity-no-filler", "", scriptProposals, nil, nil), []rejectCase{
		{"no filler allowed", three(map[core.Rank][]*script{2: {propose(2, 1, 0, 7)}}, call(2)), []string{"p2 decided 7"}},
	})
}

func TestRejectDecideOnce(t *testing.T) {
	twice := func(p core.Rank, e1, e2 core.Effect) run {
		return run{n: 3, calls: map[core.Rank][]*script{p: {calls(e1), calls(e2)}}, steps: []op{call(p), call(p)}}
	}
	checkCases(t, DecideOnce("integrity", ""), []rejectCase{
		{"first rank decides a twice, same value", twice(0, dec(1, 4), dec(1, 4)), []string{"p0 decided twice for a=1"}},
		{"last rank decides a twice, other value", twice(2, dec(0, 4), dec(0, 5)), []string{"p2 decided twice for a=0", "4", "5"}},
		{"dead last rank decided twice", twice(2, dec(0, 4), dec(0, 4)).then(crash(2)), []string{"p2"}},
		{"two instances", twice(2, dec(0, 4), dec(1, 4)), nil},
		{"a decision and a return", twice(0, dec(0, 4), ret(0, 4)), nil},
		{"two processes, one instance", decides(3, core.Rank(0), num(1), core.Rank(2), num(1)), nil},
	})
}

func TestRejectDecidedInOrder(t *testing.T) {
	seq := func(p core.Rank, es ...core.Effect) run {
		return run{n: 3, calls: map[core.Rank][]*script{p: {calls(es...)}}, steps: []op{call(p)}}
	}
	checkCases(t, DecidedInOrder("in-order", ""), []rejectCase{
		{"first rank skips a=0", seq(0, dec(1, 4)), []string{"p0 decided a=1 as its decision number 0"}},
		{"last rank goes back", seq(2, dec(0, 4), dec(1, 4), dec(0, 4)), []string{"p2 decided a=0 as its decision number 2"}},
		{"last rank repeats", seq(2, dec(0, 4), dec(0, 4)), []string{"p2"}},
		{"in order", seq(2, dec(0, 4), dec(1, 5), dec(2, 4)), nil},
		{"returns are not decisions", seq(2, ret(3, 4), dec(0, 4)), nil},
	})
}

func TestRejectEventually(t *testing.T) {
	// done: p0 has decided; assumed: p1 is alive.
	done := func(w *env.World) error {
		for _, r := range w.History(0) {
			if r.Kind == core.EffDecide {
				return nil
			}
		}
		return errors.New("p0 has not decided")
	}
	alive1 := func(w *env.World) bool { return !w.Crashed(1) }
	p := Eventually("termination", "", alive1, done)
	checkCases(t, p, []rejectCase{
		{"not done, assumption holds", decides(3, core.Rank(2), num(1)), []string{"p0 has not decided"}},
		{"not done, assumption fails", decides(3, core.Rank(2), num(1)).then(crash(1)), nil},
		{"done", decides(3, core.Rank(0), num(1)), nil},
	})
	checkCases(t, Eventually("termination-always", "", nil, done), []rejectCase{
		{"not done, no assumption", decides(3, core.Rank(2), num(1)).then(crash(1)), []string{"p0"}},
	})
	if p.Kind != checker.Eventually {
		t.Errorf("kind %v, want eventually", p.Kind)
	}
}
