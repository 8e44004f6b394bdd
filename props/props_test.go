package props

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// firstCall is the toy's input: a process's first call, for any instance.
func firstCall(w *env.World, q core.Rank, _ uint64) (core.Value, bool) {
	if calls := w.CallsMade(q); len(calls) > 0 {
		return calls[0].(num), true
	}
	return nil, false
}

// TestConstructors: each constructor holds on a toy run that keeps it and
// is violated on one that breaks it (the toy's knobs: differing inputs,
// skewed decisions, double deliveries, crashes).
func TestConstructors(t *testing.T) {
	one := [][]num{{1}, nil, nil}
	differ := [][]num{{1}, {2}, nil}
	cases := []struct {
		name string
		p    checker.Property[*env.World]
		ok   toyCase
		bad  toyCase
	}{
		{"agreement", Agreement("agreement", "", false, nil),
			toyCase{calls: [][]num{{1}, {1}, nil}}, toyCase{calls: differ}},
		{"uniform agreement", Agreement("uniform", "", true, nil),
			toyCase{calls: [][]num{{3}, {3}}, crashes: 1}, toyCase{calls: [][]num{{3}, {4}}, crashes: 1}},
		{"irrevocability", Irrevocability("irrevocability", "", nil, nil),
			toyCase{calls: [][]num{{1, 1}}}, toyCase{calls: [][]num{{1, 2}}}},
		{"validity (consensus)", Validity("validity", "", firstCall, nil, nil),
			toyCase{calls: differ}, toyCase{calls: differ, skew: 5}},
		{"validity (join)", Validity("validity", "", firstCall, maxNum, nil),
			toyCase{calls: [][]num{{1}}}, toyCase{calls: [][]num{{1}, nil}}},
		{"no duplicates", NoDuplicates("no-duplicates", ""),
			toyCase{calls: one}, toyCase{calls: one, dup: true}},
		{"integrity", Integrity("integrity", "", IntegrityRules{CallOK: func(p core.Rank) error {
			if p != 0 {
				return fmt.Errorf("%v delivered on a call, but only p0 broadcasts", p)
			}
			return nil
		}}),
			toyCase{calls: one}, toyCase{calls: [][]num{nil, {1}}}},
		{"deliveries", Deliveries("payload", "", func(_ *env.World, p core.Rank, r env.Record) error {
			if r.Value != num(1) {
				return fmt.Errorf("%v delivered %v", p, r.Value)
			}
			return nil
		}), toyCase{calls: one}, toyCase{calls: [][]num{{2}, nil}}},
		{"termination", Termination("termination", "", "Call", func(core.Input) (uint64, bool) { return 0, true }),
			toyCase{calls: one}, toyCase{calls: one, skew: 0}},
		{"bounded messages", BoundedMessages("bounded", "", func(w *env.World, p core.Rank) (int, int, bool) {
			return w.Node(p).(*toy).sent, w.N() - 1, true
		}), toyCase{calls: [][]num{{1}, {2}, nil}}, toyCase{calls: [][]num{{1, 2}, nil}}},
		{"live done", LiveDone("liveness", "", "without the message", func(w *env.World, p core.Rank) bool {
			return len(w.Node(p).(*toy).delivered) > 0
		}), toyCase{calls: one}, toyCase{calls: one, crashes: 1}},
	}
	for _, c := range cases {
		if got := c.ok.check(t, c.p); got != "" {
			t.Errorf("%s: violated on the good run: %s", c.name, got)
		}
		if c.name == "termination" {
			continue // checked below with an instance that never returns
		}
		got := c.bad.check(t, c.p)
		if got == "" {
			t.Errorf("%s: not violated on the bad run", c.name)
		}
		t.Logf("%s: %s", c.name, got)
	}
	never := Termination("termination", "", "Call", func(core.Input) (uint64, bool) { return 7, true })
	if got := (toyCase{calls: one}).check(t, never); got == "" {
		t.Error("termination: a call for an instance that never returns passed")
	}
	integrityNoCall := Integrity("integrity", "", IntegrityRules{})
	if got := (toyCase{calls: one}).check(t, integrityNoCall); got == "" {
		t.Error("integrity: a delivery on a call passed without CallOK")
	}
}

// maxNum is the join of the toy's values (their maximum).
func maxNum(a, b core.Value) core.Value {
	if a == nil {
		return b
	}
	return max(a.(num), b.(num))
}
