package era

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
)

// TestREADMECounts pins the cheap rows of the README's "Bounds reached"
// table (docs/era.md): distinct and generated states and depth of a
// complete breadth-first search with every property holding. The counts
// were measured before the restructure (ftcheck check era --n N --crashes F)
// and must not change with it.
func TestREADMECounts(t *testing.T) {
	for _, c := range []struct {
		args                string
		states, transitions int64
		depth               int
	}{
		{"--n 3 --crashes 2", 13409, 27875, 14},
		{"--n 4 --crashes 1", 83848, 230420, 19},
	} {
		res := build(t, "era", strings.Fields(c.args)...).BFS(checker.Options{})
		if res.Err != nil || !res.Complete || len(res.Violations) != 0 {
			t.Fatalf("%s: err=%v complete=%v violations=%d", c.args, res.Err, res.Complete, len(res.Violations))
		}
		if res.States != c.states || res.Transitions != c.transitions || res.Depth != c.depth {
			t.Errorf("%s: %d distinct, %d generated, depth %d; README: %d, %d, %d",
				c.args, res.States, res.Transitions, res.Depth, c.states, c.transitions, c.depth)
		}
	}
}
