package fuzz

import (
	"testing"

	"pgregory.net/rapid"
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
		runEnvRapid(rt, m, init, "ERA")
	})
}
