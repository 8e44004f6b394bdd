package ringfd

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestTimingMutantsCaught: `ftcheck check ringfd --n 3` (39,323 states,
// every property holding) catches a bounded-delay environment that
// delivers a message in its send tick and one that fires timers a tick
// early, each by the environment's timing property, with the shortest
// counterexample of the length given.
func TestTimingMutantsCaught(t *testing.T) {
	args := []string{"--n", "3"}
	res := modeltest.Build(t, "ringfd", args...).BFS(checker.Options{})
	modeltest.PinCounts(t, "ringfd --n 3", res, "", 39323, 0, 0)
	// The timing properties keep partial-order reduction on (they declare
	// what they read) and hold on every transition it takes.
	opt := checker.Options{Properties: []string{env.PropDeliveryWindow, env.PropTimerDeadline}, POR: true}
	if por := modeltest.Build(t, "ringfd", args...).BFS(opt); !por.POR || por.States != 39323 || por.Slept == 0 || len(por.Violations) != 0 {
		t.Errorf("with sleep sets: reduced %v (%s), %d states, %d slept, violations %v", por.POR, por.PORNote, por.States, por.Slept, por.Violations)
	}
	for _, c := range []struct {
		mut   mutant.Name
		prop  string
		steps int
	}{
		{env.DelayWindowSendTick, env.PropDeliveryWindow, 3},
		{env.DelayTimerEarly, env.PropTimerDeadline, 1},
		{env.DelayTickLate, env.PropDeliveryWindow, 4},
		{env.DelaySendAged, env.PropDeliveryWindow, 2},
	} {
		func() {
			defer env.SetDelayMutant(c.mut)()
			_, tr := modeltest.MustCatch(t, modeltest.Build(t, "ringfd", args...), c.prop, c.steps)
			t.Logf("%s: caught by %s in %d steps: %s", c.mut, c.prop, len(tr.Steps), tr.Violation.Message)
		}()
	}
}
