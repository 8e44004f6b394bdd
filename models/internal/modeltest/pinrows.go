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

// Counts is one pinned run: the flags of `ftcheck check MODEL ARGS` as
// the docs print them (a --property list, --dfs and --por go to the
// search, the rest to the model; breadth-first without --dfs), the counts the docs quote (Transitions
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
		args, opt := splitSearch(c.Args)
		res := Build(t, model, args...).BFS(opt)
		PinCounts(t, c.Args, res, c.Violated, c.States, c.Transitions, c.Depth)
	}
}

// splitSearch separates the flags ftcheck passes to the search (a
// --property list, --dfs, --por) from the model flags.
func splitSearch(args string) (model []string, opt checker.Options) {
	f := strings.Fields(args)
	for i := 0; i < len(f); i++ {
		switch {
		case f[i] == "--property" && i+1 < len(f):
			opt.Properties = strings.Split(f[i+1], ",")
			i++
		case f[i] == "--dfs":
			opt.Mode = checker.DepthFirst
		case f[i] == "--por":
			opt.POR = true
		default:
			model = append(model, f[i])
		}
	}
	return model, opt
}
