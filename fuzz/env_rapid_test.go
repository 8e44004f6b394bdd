package fuzz

import (
	"fmt"

	"pgregory.net/rapid"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// runEnvRapid drives one rapid state-machine run of an env model from its
// initial state init: each action kind is a rapid action that takes one
// enabled action of that kind (which one is drawn; a kind with none enabled
// is skipped). Transition properties are checked on every step and, by the
// invariant "", the invariants after every step and the quiescence
// properties whenever the world is quiescent. "stutter" is enabled only in
// a quiescent world, so that rapid always has an action to take. what names
// the protocol in failure messages.
func runEnvRapid(rt *rapid.T, m *env.Model, init int, what string) {
	var inv, quiet, trans []checker.Property[*env.World]
	for _, p := range m.Properties() {
		switch {
		case p.ExpectFail:
		case p.Kind == checker.Invariant:
			inv = append(inv, p)
		case p.Kind == checker.Quiescence:
			quiet = append(quiet, p)
		case p.Kind == checker.Transition:
			trans = append(trans, p)
		}
	}
	s := m.Init()[init]
	tr := &checker.Trace{Model: m.Name(), Params: m.Params(), Init: init}
	fail := func(rt *rapid.T, p checker.Property[*env.World], err error) {
		tr.Violation = &checker.Violation{Property: p.Name, Kind: p.Kind.String(), Message: err.Error(), Steps: len(tr.Steps)}
		rt.Fatalf("%s property violated:\n%s", what, tr)
	}
	var buf []checker.Action
	// take returns the rapid action that takes one enabled action of the
	// given kind (any kind when kind is 0), drawing which.
	take := func(kind uint8) func(*rapid.T) {
		return func(rt *rapid.T) {
			var acts []checker.Action
			buf = m.Actions(s, buf[:0])
			for _, a := range buf {
				if kind == 0 || a.Kind == kind {
					acts = append(acts, a)
				}
			}
			if len(acts) == 0 && kind == 0 {
				return // quiescent: "any" stutters, so rapid always has an action
			}
			if len(acts) == 0 {
				rt.Skip("no " + env.KindName(kind) + " enabled")
			}
			a := acts[rapid.IntRange(0, len(acts)-1).Draw(rt, "which")]
			text := m.Describe(s, a)
			next, err := m.Apply(s, a)
			if err != nil {
				rt.Fatalf("model bug: Apply of an enabled action %s: %v", text, err)
			}
			tr.Steps = append(tr.Steps, checker.Step{Action: a, Text: text})
			rt.Logf("%3d. %s", len(tr.Steps), text)
			prev := s
			s = next
			for _, p := range trans {
				if err := p.CheckStep(prev, a, next); err != nil {
					fail(rt, p, err)
				}
			}
		}
	}
	actions := map[string]func(*rapid.T){
		"stutter": func(rt *rapid.T) {
			if !m.Quiescent(s) {
				rt.Skip("not quiescent")
			}
		},
		"": func(rt *rapid.T) {
			for _, p := range inv {
				if err := p.Check(s); err != nil {
					fail(rt, p, err)
				}
			}
			if m.Quiescent(s) {
				for _, p := range quiet {
					if err := p.Check(s); err != nil {
						fail(rt, p, fmt.Errorf("%w (quiescent after %d steps)", err, len(tr.Steps)))
					}
				}
			}
		},
	}
	for _, k := range []uint8{env.Deliver, env.Lose, env.Crash, env.Detect, env.Call, env.Fire, env.Clock, env.Tick} {
		actions[env.KindName(k)] = take(k)
	}
	// "any" takes any enabled action, or stutters in a quiescent world:
	// rapid favours the first names in sorted order and gives up after too
	// many skipped draws in a row, so one name must always be valid.
	actions["any"] = take(0)
	rt.Repeat(actions)
}
