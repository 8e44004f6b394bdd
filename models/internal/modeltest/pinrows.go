package modeltest

import (
	"os"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
)

// Long reports whether the expensive pinned runs are wanted: only with
// FTKERNEL_LONG=1 (they take from ten seconds to minutes and gigabytes).
func Long() bool { return os.Getenv("FTKERNEL_LONG") == "1" }

// Counts is one pinned breadth-first run: the flags of `ftcheck check
// MODEL ARGS` as the docs print them (a --property list goes to the
// search, the rest to the model), the counts the docs quote (Transitions
// and Depth 0: not quoted), the property the run stops at ("" when it
// must complete), and whether it runs only under Long.
type Counts struct {
	Args                string
	States, Transitions int64
	Depth               int
	Violated            string
	Long                bool
}

// PinRows runs every row on model with PinCounts; Long rows are skipped
// (logged) unless Long().
func PinRows(t *testing.T, model string, rows []Counts) {
	t.Helper()
	for _, c := range rows {
		if c.Long && !Long() {
			t.Logf("%s: skipped (FTKERNEL_LONG=1 runs it)", c.Args)
			continue
		}
		args, props := splitProperty(c.Args)
		res := Build(t, model, args...).BFS(checker.Options{Properties: props})
		PinCounts(t, c.Args, res, c.Violated, c.States, c.Transitions, c.Depth)
	}
}

// splitProperty separates a command line's --property list (nil: the
// default properties), which ftcheck passes to the search, from the model
// flags.
func splitProperty(args string) (model, props []string) {
	f := strings.Fields(args)
	for i := 0; i < len(f); i++ {
		if f[i] == "--property" && i+1 < len(f) {
			props = strings.Split(f[i+1], ",")
			i++
			continue
		}
		model = append(model, f[i])
	}
	return model, props
}
