package fuzz

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/correction"
)

// FTKERNEL_RAPID_CORRECTION_MUTANT selects the Corrected Tree variant
// TestCorrectionRapid runs: the correct protocol unless it names a mutant,
// e.g.
//
//	FTKERNEL_RAPID_CORRECTION_MUTANT=opportunistic-left-only go test -run TestCorrectionRapid ./fuzz
const rapidCorrectionMutantEnv = "FTKERNEL_RAPID_CORRECTION_MUTANT"

// drawCorrectionConfig draws the environment. The correct protocol runs in
// the fuzz environments (correctionConfigOf: P = 4, 5, at most one failure
// before correction). A mutant runs where it can fail: P = 5 or 6, up to
// two failures before correction, opportunistic correction at distance 1
// (checked correction for checked-stop-on-first-message, a k-ary tree for
// kary-heap-order).
func drawCorrectionConfig(rt *rapid.T, mut mutant.Name) correctionConfig {
	if mut == mutant.None {
		return correctionConfigOf(byte(rapid.IntRange(0, numCorrectionConfigs-1).Draw(rt, "env")), mut)
	}
	c := correctionConfig{
		tree:   correctionTrees[rapid.IntRange(0, len(correctionTrees)-1).Draw(rt, "tree")],
		corr:   correction.Opportunistic,
		p:      rapid.IntRange(5, 6).Draw(rt, "P"),
		faults: rapid.IntRange(0, 2).Draw(rt, "faults"),
		d:      1,
		mut:    mut,
	}
	switch mut {
	case correction.MutantCheckedStopEarly:
		c.corr = correction.Checked
	case correction.MutantKaryHeapOrder:
		c.tree = correction.KaryInterleaved
	}
	return c
}

// TestCorrectionRapid is a rapid state-machine test of small Corrected Tree
// environments: rapid draws the environment, then a sequence of actions
// "deliver", "lose", "crash", "detect", "call", "fire" and "clock", each
// taking one enabled action of its kind (which one is drawn too; a kind
// with none enabled is skipped). Transition properties are checked on
// every step and, by the invariant "", the invariants after every step and
// the quiescence properties (non-faulty liveness) whenever the world is
// quiescent. "stutter" is enabled only in a quiescent world, so that rapid
// always has an action to take. A failure is shrunk by rapid; its log lists
// the shrunk schedule.
func TestCorrectionRapid(t *testing.T) {
	mut := correctionMutantFromEnv(t, rapidCorrectionMutantEnv)
	rapid.Check(t, func(rt *rapid.T) {
		c := drawCorrectionConfig(rt, mut)
		m, err := c.model()
		if err != nil {
			rt.Fatal(err)
		}
		rt.Logf("env: %v (%s)", c, m.Name())
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
		s := m.Init()[0]
		tr := &checker.Trace{Model: m.Name(), Params: m.Params()}
		fail := func(rt *rapid.T, p checker.Property[*env.World], err error) {
			tr.Violation = &checker.Violation{Property: p.Name, Kind: p.Kind.String(), Message: err.Error(), Steps: len(tr.Steps)}
			rt.Fatalf("correction property violated (%v):\n%s", c, tr)
		}
		var buf []checker.Action
		take := func(kind uint8) func(*rapid.T) {
			return func(rt *rapid.T) {
				var acts []checker.Action
				buf = m.Actions(s, buf[:0])
				for _, a := range buf {
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
			"fire":    take(env.Fire),
			"clock":   take(env.Clock),
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
