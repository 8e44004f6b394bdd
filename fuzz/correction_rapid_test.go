package fuzz

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

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
		runEnvRapid(rt, m, 0, fmt.Sprintf("correction (%v)", c))
	})
}
