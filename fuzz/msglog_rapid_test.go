package fuzz

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	mlmodel "github.com/ftkernel/ftkernel/models/msglog"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// TestMsglogRapid: rapid draws a program (any shipped one but fig51, 2–4
// processes; or fig51), a logger, the acknowledgement mode, a checkpoint
// interval, a crash budget with as many restarts, then every action of a
// run of models/msglog, a crash only when every process is up and none
// replays (one failure at a time). Every invariant holds on every step;
// at the run's quiescent end, with every process up, termination holds.
// Rapid shrinks a failure to a minimal configuration and schedule.
func TestMsglogRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		names := ml.ProgramNames()
		p := mlmodel.Params{Program: rapid.SampledFrom(names).Draw(rt, "program"), Procs: 3, F: 1}
		if p.Program != "fig51" {
			p.Procs = rapid.IntRange(2, 4).Draw(rt, "procs")
		}
		p.Logger = rapid.SampledFrom([]el.Kind{el.Centralized, el.Centralized, el.Parallel, el.Classic}).Draw(rt, "logger")
		p.DelayedAck = rapid.Bool().Draw(rt, "delayed-ack")
		p.CheckpointEvery = rapid.IntRange(0, 2).Draw(rt, "checkpoint-every")
		p.Crashes = rapid.IntRange(0, 3).Draw(rt, "crashes")
		p.Recoveries = p.Crashes
		m, err := mlmodel.NewModel(p)
		if err != nil {
			rt.Fatal(err)
		}
		w := m.Init()[0]
		for step := 0; step < 5000; step++ {
			var as []checker.Action
			for _, a := range m.Actions(w, nil) {
				if a.Kind == env.Crash && !mlmodel.Settled(w, p.Procs) {
					continue
				}
				as = append(as, a)
			}
			if len(as) == 0 || m.Quiescent(w) && !hasRecover(as) {
				for _, pr := range m.Properties() {
					if pr.Kind == checker.Quiescence {
						if err := pr.Check(w); err != nil {
							rt.Fatalf("step %d: %s violated at the end: %v", step, pr.Name, err)
						}
					}
				}
				return
			}
			a := as[rapid.IntRange(0, len(as)-1).Draw(rt, "action")]
			next, err := m.Apply(w, a)
			if err != nil {
				rt.Fatalf("step %d: %s: %v", step, m.Describe(w, a), err)
			}
			for _, pr := range m.Properties() {
				if pr.Kind == checker.Invariant {
					if err := pr.Check(next); err != nil {
						rt.Fatalf("step %d (%s): %s violated: %v", step, m.Describe(w, a), pr.Name, err)
					}
				}
			}
			w = next
		}
	})
}

func hasRecover(as []checker.Action) bool {
	for _, a := range as {
		if a.Kind == env.Recover {
			return true
		}
	}
	return false
}
