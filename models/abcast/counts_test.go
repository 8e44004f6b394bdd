package abcast_test

import (
	"testing"

	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestDocsCounts pins the complete searches (breadth-first unless --dfs) of
// docs/abcast.md ("Exhaustive checks"): every property holds. The cheap
// rows run by default, the costly ones with FTKERNEL_LONG=1.
func TestDocsCounts(t *testing.T) {
	modeltest.PinRows(t, "abcast", []modeltest.Counts{
		{Args: "--variant ub --core 3 --messages 1 --crashes 0", States: 580, Transitions: 1741, Depth: 11},
		{Args: "--variant bb --core 3 --messages 1 --crashes 0", States: 2141, Transitions: 8478, Depth: 13},
		{Args: "--variant ub --core 3 --messages 1 --crashes 1", States: 5220, Transitions: 15077, Depth: 14},
		{Args: "--variant bb --core 3 --messages 1 --crashes 1", States: 19269, Transitions: 65928, Depth: 16},
		{Args: "--variant consensus --core 2 --messages 2 --k 2 --crashes 0", States: 6144, Transitions: 21552, Depth: 22},
		{Args: "--variant ub --core 3 --messages 1 --crashes 1 --detector none --forget-crashed --dfs --por", States: 542, Transitions: 993, Depth: 12},
		{Args: "--variant bb --core 3 --messages 1 --crashes 1 --detector none --forget-crashed --dfs --por", States: 1227, Transitions: 2845, Depth: 14},
		{Args: "--variant consensus --core 3 --messages 1 --k 3 --crashes 1 --detector coordinator --forget-crashed", States: 86877, Transitions: 472312, Depth: 23, Long: true},
		{Args: "--variant consensus --core 3 --messages 1 --k 3 --crashes 1 --consensus oracle", States: 2441, Transitions: 8226, Depth: 14},
		{Args: "--variant consensus --core 3 --messages 1 --k 3 --crashes 1 --consensus oracle --detector coordinator --forget-crashed", States: 1541, Transitions: 5268, Depth: 13},
		{Args: "--variant bb --core 3 --messages 2 --crashes 1 --detector none --forget-crashed --dfs --por", States: 3783723, Transitions: 15497558, Depth: 27, Long: true},
		{Args: "--variant ub --core 3 --messages 2 --crashes 1 --detector none --forget-crashed --dfs --por", States: 545191, Transitions: 1753578, Depth: 23, Long: true},
		{Args: "--variant ub --core 4 --messages 1 --crashes 1 --detector none --forget-crashed --dfs --por", States: 20936, Transitions: 47097, Depth: 20},
		{Args: "--variant bb --core 4 --messages 1 --crashes 1 --detector none --forget-crashed --dfs --por", States: 171196, Transitions: 539997, Depth: 26, Long: true},
		{Args: "--variant ub --core 4 --messages 1 --crashes 1", States: 3057000, Transitions: 17137449, Depth: 23, Long: true},
		{Args: "--variant ub --core 3 --messages 2 --crashes 1 --dfs --por", States: 14373675, Transitions: 47998460, Depth: 25, Long: true},
		{Args: "--variant consensus --core 3 --messages 1 --k 3 --crashes 0", States: 44705, Transitions: 220136, Depth: 23, Long: true},
		{Args: "--variant consensus --core 2 --messages 2 --k 1 --crashes 0", States: 403277, Transitions: 2501332, Depth: 32, Long: true},
		{Args: "--variant consensus --core 3 --messages 1 --k 3 --crashes 1", States: 131353, Transitions: 684546, Depth: 24, Long: true},
		{Args: "--variant consensus --core 3 --messages 2 --k 2 --crashes 1 --consensus oracle --detector coordinator --forget-crashed --drop-absorbed --dfs", States: 283503, Transitions: 906670, Depth: 22},
		{Args: "--variant consensus --core 3 --messages 2 --k 2 --crashes 1 --consensus oracle --detector coordinator --forget-crashed --dfs", States: 17760585, Transitions: 146039550, Depth: 30, Long: true},
		{Args: "--variant consensus --core 3 --messages 2 --k 6 --crashes 1 --detector coordinator --forget-crashed --drop-absorbed --dfs", States: 850539, Transitions: 2825119, Depth: 31, Long: true},
	})
}

// TestCrashSequencer: with --crash-sequencer, p0 may crash and nothing
// takes over (statemachine/abcast, "Sequencer crash"): the members that
// broadcast after it crashed never deliver, so validity fails, for each
// variant, in the runs the counterexample lengths give.
func TestCrashSequencer(t *testing.T) {
	for _, c := range []struct {
		args  string
		steps int
	}{
		{"--variant ub --core 3 --messages 1 --crashes 1 --crash-sequencer", 5},
		{"--variant bb --core 3 --messages 1 --crashes 1 --crash-sequencer", 7},
		{"--variant consensus --core 3 --messages 1 --k 3 --crashes 1 --crash-sequencer", 7},
	} {
		t.Run(c.args, func(t *testing.T) {
			modeltest.MustCatch(t, modeltest.Build(t, "abcast", splitArgs(c.args)...), "validity", c.steps)
		})
	}
}

// TestCrashSequencerSafety: with --crash-sequencer, agreement, integrity,
// no creation and total order still hold over the complete search (a
// member's sends are one step, and a crashed sender's messages are still
// delivered: a number or decision that reached one member reaches all).
func TestCrashSequencerSafety(t *testing.T) {
	for _, c := range []modeltest.Counts{
		{Args: "--variant ub --core 3 --messages 1 --crashes 1 --crash-sequencer --property agreement,integrity,no-creation,total-order", States: 7540, Transitions: 24361, Depth: 14},
		{Args: "--variant bb --core 3 --messages 1 --crashes 1 --crash-sequencer --property agreement,integrity,no-creation,total-order", States: 27833, Transitions: 108409, Depth: 16},
	} {
		modeltest.PinRows(t, "abcast", []modeltest.Counts{c})
	}
}
