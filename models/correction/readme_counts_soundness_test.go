package correction

import (
	"testing"

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
	modeltest.PinRows(t, "correction", []modeltest.Counts{
		// "Mutants": the correct protocol at the --mutants bound.
		{Args: "--P 5 --correction opportunistic --d 1 --faults 2 --faults-before-correction", States: 50583, Transitions: 251230, Depth: 31},
		// "Failures during correction": failures at any step break checked
		// correction; confined to before correction, every property holds.
		{Args: "--P 6 --tree binomial-inorder --correction checked --faults 4 --timing rounds", States: 77332, Transitions: 280555, Depth: 23, Violated: "non-faulty-liveness"},
		{Args: "--P 6 --tree binomial-inorder --correction checked --faults 4 --timing rounds --faults-before-correction", States: 23149},
		// kary-heap-order's bound, the correct protocol in rounds.
		{Args: "--P 7 --tree kary --k 3 --correction opportunistic --d 1 --faults 1 --faults-before-correction --timing rounds", States: 15186},
		// Corrected Gossip in rounds, seed 1.
		{Args: "--tree gossip --gossip-rounds 2 --seed 1 --P 8 --correction checked --faults 2 --faults-before-correction --timing rounds", States: 11491},
		// Corrected Gossip, asynchronous.
		{Args: "--tree gossip --P 3 --correction checked --faults 1 --faults-before-correction", States: 66281, Transitions: 356859, Depth: 35, Long: true},
		// "Exhaustive checking": the in-order tree breaks opportunistic
		// correction; the interleaved binomial tree holds.
		{Args: "--P 6 --tree kary-inorder --k 2 --correction opportunistic --d 1 --faults 1 --faults-before-correction", States: 166016, Transitions: 1045559, Depth: 21, Violated: "non-faulty-liveness", Long: true},
		{Args: "--P 6 --correction opportunistic --d 1 --faults 2 --faults-before-correction", States: 446584, Long: true},
		// Lock-step rounds, checked correction, P = 8, F = 7, every tree.
		{Args: "--tree binomial --P 8 --faults 7 --timing rounds --faults-before-correction", States: 408365, Long: true},
		{Args: "--tree binomial-inorder --P 8 --faults 7 --timing rounds --faults-before-correction", States: 406894, Long: true},
		{Args: "--tree kary --k 2 --P 8 --faults 7 --timing rounds --faults-before-correction", States: 386409, Long: true},
		{Args: "--tree lame --k 2 --P 8 --faults 7 --timing rounds --faults-before-correction", States: 466192, Long: true},
		{Args: "--tree optimal --P 8 --faults 7 --timing rounds --faults-before-correction", States: 548720, Long: true},
		// docs/correction.md "Exhaustive checking", docs/checker.md "Dropping
		// absorbed messages": all three reductions at P=5, about 2 minutes.
		{Args: "--correction checked --timing async --P 5 --faults 2 --forget-crashed --drop-absorbed --dfs --por",
			States: 39737047, Transitions: 128007760, Depth: 58, Long: true},
	})
}
