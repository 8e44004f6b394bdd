package fuzz

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ftkernel/ftkernel/checker/env"
	paxosmodel "github.com/ftkernel/ftkernel/models/paxos"
)

// TestPaxosRapid: rapid draws a Paxos group (1–3 proposers, 1–5
// acceptors, learners among proposers, acceptors or all, 1–4 commands,
// Fig. 2.1's competition or not), fault budgets (crashes, restarts,
// losses, duplicates), a delay bound and then every action of a run of
// models/paxos under bounded delay; every safety property holds on every
// step, and at the run's quiescent end termination holds (§2.1.2). Rapid
// shrinks a failure to a minimal group and schedule.
func TestPaxosRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p := paxosmodel.Params{
			Proposers:  rapid.IntRange(1, 3).Draw(rt, "proposers"),
			Acceptors:  rapid.IntRange(1, 5).Draw(rt, "acceptors"),
			Instances:  rapid.IntRange(1, 4).Draw(rt, "instances"),
			Learners:   paxosmodel.Learners(rapid.IntRange(0, 2).Draw(rt, "learners")),
			Compete:    rapid.Bool().Draw(rt, "compete"),
			Loss:       rapid.IntRange(0, 3).Draw(rt, "loss"),
			Dup:        rapid.IntRange(0, 2).Draw(rt, "dup"),
			Timing:     env.BoundedDelay,
			Delta:      rapid.IntRange(1, 2).Draw(rt, "delta"),
			Recoveries: 0,
		}
		p.Crashes = rapid.IntRange(0, p.N()).Draw(rt, "crashes")
		if p.Crashes > 0 {
			p.Recoveries = rapid.IntRange(0, 3).Draw(rt, "recoveries")
		}
		m, err := paxosmodel.NewModel(p)
		if err != nil {
			rt.Fatal(err)
		}
		walkRapid(rt, m, 3000, false)
	})
}
