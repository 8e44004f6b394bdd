package correction

import (
	"runtime"

	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// Bytes one LogP simulation of a broadcast holds per process, with a
// quarter for the collector: the live heap measured at P = 2^18 … 2^20 is
// about 600 bytes per process (the optimal tree's tables add a third, the
// event log of --svg makes it 6.9 KB).
const (
	simBytesPerProc        = 768
	simBytesPerProcOptimal = 1024
	simBytesPerProcLog     = 8704
	simBytesBase           = 32 << 20
)

// simMemory estimates the bytes a simulation of p needs up front: one
// simulation per worker (workers of a campaign, 1 for a single run), twice
// for optimized correction (its opportunistic twin), each with its gossip
// partner plan (4 bytes per process and round, the setting's and the
// run's). log: the event log of a timeline picture. optimal: the optimal
// tree's tables (a campaign that builds every tree).
func simMemory(p Params, o int64, workers int, optimal, log bool) int64 {
	per := int64(simBytesPerProc)
	if optimal || p.Tree.Kind == corrsm.Optimal {
		per = simBytesPerProcOptimal
	}
	if log {
		per = simBytesPerProcLog
	}
	sims := int64(max(workers, 1))
	if p.Correction == corrsm.OptimizedOpportunistic {
		sims *= 2
	}
	one := int64(p.P) * per
	if g := p.Gossip; g != nil {
		rounds := int64(g.Rounds)
		if rounds == 0 {
			t := g.Time
			if t == 0 {
				t = DefaultGossipTime(p.P)
			}
			rounds = (t + o - 1) / max(o, 1)
		}
		one += 2 * 4 * int64(p.P) * rounds
	}
	return simBytesBase + sims*one
}

// campaignWorkers is the number of runs a campaign of runs simulates at
// once (Campaign).
func campaignWorkers(runs int) int { return min(runtime.GOMAXPROCS(0), runs) }
