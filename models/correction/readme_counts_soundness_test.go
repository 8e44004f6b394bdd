package correction

import (
	"os"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestDocsCounts pins the distinct-state counts docs/correction.md quotes
// that TestREADMECounts and the mutant tests do not: the state space is
// deterministic, so an environment or encoding that starts merging
// distinct worlds (or a search that loses states) changes a count and
// fails here, loudly, even while every property still "holds". The cheap
// rows always run; the expensive ones with FTKERNEL_LONG=1. Each row is
// the command the docs give: `ftcheck check correction ARGS`; transitions
// and depth are pinned where the docs print them (0: not quoted).
func TestDocsCounts(t *testing.T) {
	long := os.Getenv("FTKERNEL_LONG") == "1"
	for _, c := range []struct {
		args                string
		states, transitions int64
		depth               int
		violated            string // the property a violating run stops at, "" when complete
		long                bool
	}{
		// "Mutants": the correct protocol at the --mutants bound.
		{"--P 5 --correction opportunistic --d 1 --faults 2 --faults-before-correction", 50583, 251230, 31, "", false},
		// "Failures during correction": failures at any step break checked
		// correction; confined to before correction, every property holds.
		{"--P 6 --tree binomial-inorder --correction checked --faults 4 --timing rounds", 77332, 280555, 23, "non-faulty-liveness", false},
		{"--P 6 --tree binomial-inorder --correction checked --faults 4 --timing rounds --faults-before-correction", 23149, 0, 0, "", false},
		// kary-heap-order's bound, the correct protocol in rounds.
		{"--P 7 --tree kary --k 3 --correction opportunistic --d 1 --faults 1 --faults-before-correction --timing rounds", 15186, 0, 0, "", false},
		// Corrected Gossip in rounds, seed 1.
		{"--tree gossip --gossip-rounds 2 --seed 1 --P 8 --correction checked --faults 2 --faults-before-correction --timing rounds", 11491, 0, 0, "", false},
		// Corrected Gossip, asynchronous.
		{"--tree gossip --P 3 --correction checked --faults 1 --faults-before-correction", 66281, 356859, 35, "", true},
		// "Exhaustive checking": the in-order tree breaks opportunistic
		// correction; the interleaved binomial tree holds.
		{"--P 6 --tree kary-inorder --k 2 --correction opportunistic --d 1 --faults 1 --faults-before-correction", 166016, 1045559, 21, "non-faulty-liveness", true},
		{"--P 6 --correction opportunistic --d 1 --faults 2 --faults-before-correction", 446584, 0, 0, "", true},
		// Lock-step rounds, checked correction, P = 8, F = 7, every tree.
		{"--tree binomial --P 8 --faults 7 --timing rounds --faults-before-correction", 408365, 0, 0, "", true},
		{"--tree binomial-inorder --P 8 --faults 7 --timing rounds --faults-before-correction", 406894, 0, 0, "", true},
		{"--tree kary --k 2 --P 8 --faults 7 --timing rounds --faults-before-correction", 386409, 0, 0, "", true},
		{"--tree lame --k 2 --P 8 --faults 7 --timing rounds --faults-before-correction", 466192, 0, 0, "", true},
		{"--tree optimal --P 8 --faults 7 --timing rounds --faults-before-correction", 548720, 0, 0, "", true},
	} {
		if c.long && !long {
			t.Logf("%s: skipped (FTKERNEL_LONG=1 runs it)", c.args)
			continue
		}
		res := build(t, "correction", strings.Fields(c.args)...).BFS(checker.Options{})
		modeltest.PinCounts(t, c.args, res, c.violated, c.states, c.transitions, c.depth)
	}
}
