package era

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// TestTerminationAloneCatchesSecondAgreement: resend-up-first-agreement-only
// leaves only the second of two agreements waiting. Termination catches it
// (TestERAMutantsCaught) at a process that returned the first agreement,
// and every other property holds on the whole state space at those bounds:
// termination must check every call, not the first returned one.
func TestTerminationAloneCatchesSecondAgreement(t *testing.T) {
	args := []string{"--n", "3", "--crashes", "1", "--agreements", "2", "--values", "1", "--mutant", string(erasm.MutantResendUpFirstOnly)}
	r := build(t, "era", args...)
	_, tr := mustCatch(t, r, Termination, 9)
	msg := tr.Violation.String()
	if !strings.Contains(msg, "Agreement(a=1)") {
		t.Fatalf("want the second agreement unreturned: %s", msg)
	}
	var others []string
	for _, p := range r.Properties() {
		if p.Name != Termination && !p.ExpectFail {
			others = append(others, p.Name)
		}
	}
	if len(others) < 4 {
		t.Fatalf("properties besides termination: %v", others)
	}
	res := r.BFS(checker.Options{Properties: others})
	if !res.Complete || len(res.Violations) > 0 {
		t.Fatalf("%v catch it too (complete=%v): %v", others, res.Complete, first(res.Violations))
	}
	t.Logf("only termination catches it; %v hold on %d states", others, res.States)
}
