package abcast_test

import (
	"strings"
	"testing"

	_ "github.com/ftkernel/ftkernel/models/abcast"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestMutantsCaught: each mutant of statemachine/abcast is caught by
// breadth-first search, by its property, with a shortest counterexample of
// the length given, which replays to the same violation.
func TestMutantsCaught(t *testing.T) {
	for _, c := range []struct {
		args, property string
		steps          int
	}{
		// The sequencer numbers p1's message 0, as it did its own: p1
		// delivers p0's message, p2 delivers p1's; neither gets the other.
		{"--variant ub --core 3 --messages 1 --crashes 0 --mutant reuse-number", "validity", 11},
		{"--variant bb --core 3 --messages 1 --crashes 0 --mutant reuse-number", "validity", 13},
		// Two members deliver two payloads in the order they arrive.
		{"--variant bb --core 3 --messages 1 --crashes 0 --mutant deliver-on-payload", "total-order", 4},
		// Two members deliver their first k=2 arrivals before any decision.
		{"--variant consensus --core 3 --messages 1 --k 2 --crashes 0 --mutant deliver-before-decision", "total-order", 4},
		// The decided batch of three, in two members' arrival orders.
		{"--variant consensus --core 3 --messages 1 --k 2 --crashes 0 --mutant batch-arrival-order", "total-order", 12},
		// p0's message is in batch 0 and again in the end-of-round batch 1.
		{"--variant consensus --core 2 --messages 1 --k 2 --crashes 0 --mutant batch-overlap", "integrity", 15},
		// Four messages, k = 3: the fourth is never proposed.
		{"--variant consensus --core 2 --messages 2 --k 3 --crashes 0 --mutant wait-full-batch", "validity", 17},
	} {
		t.Run(c.args, func(t *testing.T) {
			modeltest.MustCatch(t, modeltest.Build(t, "abcast", splitArgs(c.args)...), c.property, c.steps)
		})
	}
}

func splitArgs(s string) []string { return strings.Fields(s) }
