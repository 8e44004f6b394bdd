package fuzz

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// FTKERNEL_RAPID_MUTANT selects the ERA variant TestERARapid runs: the
// correct protocol unless it names a mutant, e.g.
//
//	FTKERNEL_RAPID_MUTANT=no-up-to-new-parent go test -run TestERARapid ./fuzz
const rapidMutantEnv = "FTKERNEL_RAPID_MUTANT"

// TestERARapid is a rapid state-machine test of the N=4 ERA environment
// (crash budget 2, one agreement): rapid draws the environment (topology,
// network, lose-on-crash), each process's flag, then a sequence of actions
// "deliver", "lose", "crash", "detect" and "call", each taking one enabled
// action of its kind (which one is drawn too; an action kind with none
// enabled is skipped). Transition properties are checked on every step and,
// by the invariant "", the invariants after every step and the quiescence
// properties whenever the world is quiescent. "stutter" is enabled only in a
// quiescent world, so that rapid always has an action to take. A failure is
// shrunk by rapid; its log lists the shrunk schedule.
func TestERARapid(t *testing.T) {
	rapidMutant := mutantFromEnv(t, rapidMutantEnv)
	rapid.Check(t, func(rt *rapid.T) {
		header := rapid.IntRange(0, numConfigs-1).Draw(rt, "env")
		c := configOf(byte(header), rapidMutant)
		m, err := c.model()
		if err != nil {
			rt.Fatal(err)
		}
		// AllInputVectors counts in binary, process 0 the lowest digit.
		flags := rapid.SliceOfN(rapid.IntRange(0, 1), scheduleN, scheduleN).Draw(rt, "flags")
		init := 0
		for p := scheduleN - 1; p >= 0; p-- {
			init = 2*init + flags[p]
		}
		rt.Logf("env: %s, flags %v (input vector %d)", m.Name(), flags, init)
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
			rt.Fatalf("ERA property violated:\n%s", tr)
		}
		take := func(kind uint8) func(*rapid.T) {
			return func(rt *rapid.T) {
				var acts []checker.Action
				for _, a := range m.Actions(s, nil) {
					if a.Kind == kind {
						acts = append(acts, a)
					}
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
		rt.Repeat(map[string]func(*rapid.T){
			"deliver": take(env.Deliver),
			"lose":    take(env.Lose),
			"crash":   take(env.Crash),
			"detect":  take(env.Detect),
			"call":    take(env.Call),
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
		})
	})
}
