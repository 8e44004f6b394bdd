package era

import (
	"testing"

	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestDocsCounts pins the distinct-state counts README.md and docs/era.md
// quote that TestREADMECounts does not: the state space is deterministic,
// so an environment or encoding that starts merging distinct worlds (or a
// search that loses states) changes a count and fails here, loudly, even
// while every property still "holds". The cheap rows always run; the
// expensive ones (the README's main job among them) with FTKERNEL_LONG=1.
// Each row is the command the docs give: `ftcheck check era ARGS`.
func TestDocsCounts(t *testing.T) {
	modeltest.PinRows(t, "era", []modeltest.Counts{
		// docs/era.md "ERA is not uniform".
		{Args: "--n 3 --crashes 2 --property uniform-agreement", States: 6948, Transitions: 17862, Depth: 7, Violated: "uniform-agreement"},
		// docs/era.md "Bounds reached".
		{Args: "--n 4 --crashes 2", States: 1434517, Transitions: 4350040, Depth: 24, Long: true},
		{Args: "--n 5 --crashes 1", States: 671524, Transitions: 2468976, Depth: 23, Long: true},
		{Args: "--n 3 --crashes 2 --agreements 2", States: 3681758, Transitions: 10173124, Depth: 23, Long: true},
		{Args: "--n 5 --crashes 3 --forget-crashed --dfs", States: 33887005, Transitions: 179367619, Depth: 41, Long: true},
		// docs/era.md "Broken variants are caught" (the correct protocol).
		{Args: "--n 4 --crashes 2 --network fifo", States: 1318789, Transitions: 3931800, Depth: 24, Long: true},
		// README.md "The main job".
		{Args: "--n 4 --crashes 3", States: 4365061, Transitions: 12793999, Depth: 24, Long: true},
	})
}
