package msglog

import (
	"testing"

	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestCompleteCounts pins docs/msglog.md's complete depth-first
// searches: gather with delayed acknowledgements (half a second), and,
// with FTKERNEL_LONG=1, the master/worker with 3 workers and one crash of
// any process (about 12 min of CPU, 1.3 GB).
func TestCompleteCounts(t *testing.T) {
	modeltest.PinRows(t, "msglog", []modeltest.Counts{
		{Args: "--program gather --delayed-ack --dfs", States: 82146, Transitions: 405515},
		{Args: "--program masterworker --procs 4 --dfs", States: 37567248, Transitions: 193675415, Long: true},
	})
}
