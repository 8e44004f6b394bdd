package correction

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
)

// TestREADMECounts pins the cheap exhaustive counts the README quotes for
// Corrected Trees (docs/correction.md): checked correction at P = 3 with
// F = 1 before correction and F = 2 at any step (complete, every property
// holds) and the opportunistic-left-only mutant at P = 6 (caught by
// non-faulty-liveness in 12 steps, 4,524 states). Measured before the
// restructure; they must not change with it.
func TestREADMECounts(t *testing.T) {
	for _, c := range []struct {
		args   string
		states int64
		long   bool // skipped with -short
	}{
		{"--P 3 --faults 1 --faults-before-correction", 66220, false},
		{"--P 3 --faults 2", 118387, true},
	} {
		if c.long && testing.Short() {
			t.Logf("%s: skipped with -short", c.args)
			continue
		}
		res := build(t, "correction", strings.Fields(c.args)...).BFS(checker.Options{})
		if res.Err != nil || !res.Complete || len(res.Violations) != 0 {
			t.Fatalf("%s: err=%v complete=%v violations=%d", c.args, res.Err, res.Complete, len(res.Violations))
		}
		if res.States != c.states {
			t.Errorf("%s: %d distinct states; README: %d", c.args, res.States, c.states)
		}
	}
	r := build(t, "correction", strings.Fields("--P 6 --correction opportunistic --d 1 --faults 2 --faults-before-correction --mutant opportunistic-left-only")...)
	res, _ := mustCatch(t, r, "non-faulty-liveness", 12)
	if res.States != 4524 {
		t.Errorf("opportunistic-left-only: %d states; README: 4524", res.States)
	}
}
