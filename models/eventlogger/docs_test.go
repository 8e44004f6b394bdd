package eventlogger

import (
	"testing"

	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestDocsCounts pins docs/eventlogger.md's exhaustive runs ("Exhaustive
// runs"): distinct states, depth and the property violated, for the
// commands `ftcheck check eventlogger ARGS`. The rows over a few seconds
// run with FTKERNEL_LONG=1.
func TestDocsCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive searches")
	}
	modeltest.PinRows(t, "eventlogger", []modeltest.Counts{
		{Args: "--logger centralized --procs 2 --f 1 --crashes 1", States: 259, Depth: 19},
		{Args: "--logger centralized --procs 2 --f 1 --crashes 1 --crash-logger --property termination", States: 72, Depth: 5, Violated: Termination},
		{Args: "--logger centralized --procs 2 --f 1 --crashes 1 --crash-logger", States: 361, Depth: 19},
		{Args: "--logger parallel --procs 2 --f 1 --crashes 1", States: 387401, Depth: 75, Long: true},
		{Args: "--logger parallel --procs 2 --f 1 --crashes 1 --forget-crashed", States: 278707, Depth: 75, Long: true},
		{Args: "--logger classic --procs 1 --f 1 --crashes 1 --retransmit 7", States: 462508, Depth: 104, Long: true},
		{Args: "--logger classic --procs 1 --f 1 --crashes 1 --retransmit 7 --forget-crashed", States: 339100, Depth: 85, Long: true},
		{Args: "--logger classic --procs 1 --f 1 --crashes 0", States: 65146, Depth: 98, Long: true},
		{Args: "--logger classic --procs 1 --f 1 --crashes 0 --retransmit 4", States: 41569, Depth: 84, Long: true},
		{Args: "--logger classic --procs 1 --f 1 --crashes 0 --retransmit 5", States: 1244, Depth: 71},
		{Args: "--logger classic --procs 1 --f 1 --crashes 0 --retransmit 16", States: 1122, Depth: 82},
		{Args: "--logger classic --procs 2 --f 1 --crashes 0 --retransmit 5", States: 123852, Depth: 109, Long: true},
		{Args: "--logger classic --procs 2 --f 1 --crashes 1 --retransmit 16 --forget-crashed --property linearizable --dfs", States: 4551300, Transitions: 34533916, Long: true},
	})
}
