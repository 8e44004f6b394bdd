package gossipfd

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestTimingMutantsCaught: `ftcheck check gossipfd --timing bounded
// --variant dbrr --n 4 --crashes 1 --max-rounds 6` holds every property
// on the correct environment and catches one that delivers a message in
// its send tick and one that fires timers a tick early, each by the
// environment's timing property, with the shortest counterexample of the
// length given.
func TestTimingMutantsCaught(t *testing.T) {
	args := strings.Fields("--timing bounded --variant dbrr --n 4 --crashes 1 --max-rounds 6")
	res := build(t, args...).BFS(checker.Options{})
	if res.Err != nil || !res.Complete || len(res.Violations) != 0 {
		t.Fatalf("correct environment: err %v, complete %v, violations %v", res.Err, res.Complete, res.Violations)
	}
	t.Logf("correct environment: %d states, all properties hold", res.States)
	for _, c := range []struct {
		mut   mutant.Name
		prop  string
		steps int
	}{
		{env.DelayWindowSendTick, env.PropDeliveryWindow, 10},
		{env.DelayTimerEarly, env.PropTimerDeadline, 1},
	} {
		func() {
			defer env.SetDelayMutant(c.mut)()
			_, tr := modeltest.MustCatch(t, build(t, args...), c.prop, c.steps)
			t.Logf("%s: caught by %s in %d steps: %s", c.mut, c.prop, len(tr.Steps), tr.Violation.Message)
		}()
	}
}
