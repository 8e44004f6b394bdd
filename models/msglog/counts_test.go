package msglog

import (
	"testing"

	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestCompleteCounts pins docs/msglog.md's complete depth-first
// searches: gather with delayed acknowledgements (half a second), fig51
// over the Classic Paxos logger without a crash at a retransmission
// timeout of 9 ticks (a hundredth of a second), and, with FTKERNEL_LONG=1,
// the master/worker with 3 workers and one crash of any process (about
// 12 min of CPU, 1.3 GB), fig51 over the Classic Paxos logger with a
// crash and its restart at that timeout (about 3 min, 0.4 GB), and fig51
// over the centralized logger with two crashes and two restarts (about
// 5 min).
func TestCompleteCounts(t *testing.T) {
	modeltest.PinRows(t, "msglog", []modeltest.Counts{
		{Args: "--program gather --delayed-ack --dfs", States: 82146, Transitions: 405515},
		{Args: "--logger classic --retransmit 9 --crashes 0 --recoveries 0 --dfs", States: 2524, Transitions: 10721},
		{Args: "--program masterworker --procs 4 --dfs", States: 37567248, Transitions: 193675415, Long: true},
		{Args: "--logger classic --retransmit 9 --dfs", States: 15478332, Transitions: 93773532, Long: true},
		{Args: "--crashes 2 --recoveries 2 --dfs", States: 52629260, Transitions: 360278690, Long: true},
	})
}
