package fuzz

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ftkernel/ftkernel/checker/env"
	elmodel "github.com/ftkernel/ftkernel/models/eventlogger"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// TestEventloggerRapid: rapid draws a logger (centralized, Classic or
// Parallel, Table 5.1's or §5.3.1's deployment), 1–3 application
// processes, f = 1 or 2, 1–3 saves, remove-up-to or not, fault budgets
// (crashes of processes and up to f acceptors, restarts, for the Paxos
// loggers losses and duplicates), Paxos's retransmission timeout, and then
// every action of a run of models/eventlogger under bounded delay Δ = 1;
// the environment's timing and fault-budget properties hold on every
// step, and at the run's quiescent end the log is linearizable and every
// live process's calls have returned (§5.1.1, §5.1.3). Rapid shrinks a
// failure to a minimal deployment and schedule.
func TestEventloggerRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p := elmodel.Params{
			Kind:   el.Kind(rapid.IntRange(0, 2).Draw(rt, "logger")),
			Procs:  rapid.IntRange(1, 3).Draw(rt, "procs"),
			F:      rapid.IntRange(1, 2).Draw(rt, "f"),
			Saves:  rapid.IntRange(1, 3).Draw(rt, "saves"),
			Remove: rapid.Bool().Draw(rt, "remove"),
			Timing: env.BoundedDelay,
			Delta:  1,
		}
		maxCrashes := p.Procs
		if p.Kind != el.Centralized {
			p.Experimental = rapid.Bool().Draw(rt, "experimental")
			p.Loss = rapid.IntRange(0, 2).Draw(rt, "loss")
			p.Dup = rapid.IntRange(0, 2).Draw(rt, "dup")
			p.Retransmit = rapid.SampledFrom([]int{0, 5, 7}).Draw(rt, "retransmit")
			maxCrashes += p.F
		}
		p.Crashes = rapid.IntRange(0, maxCrashes).Draw(rt, "crashes")
		if p.Crashes > 0 {
			p.Recoveries = rapid.IntRange(0, 2).Draw(rt, "recoveries")
		}
		m, err := elmodel.NewModel(p)
		if err != nil {
			rt.Fatal(err)
		}
		walkRapid(rt, m, 5000, false)
	})
}
