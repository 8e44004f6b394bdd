package correction

import (
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker/logp"
	"github.com/ftkernel/ftkernel/core"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// gossipRun simulates Corrected Gossip with checked correction: P
// processes, gossip time T, uniform partners drawn from seed, the
// correction start a Wakeup at T (first in its instant or not).
func gossipRun(t *testing.T, P int, T int64, seed uint64, first bool, faults core.RankSet) *logp.Result {
	t.Helper()
	top, err := corrsm.NewTopology(corrsm.Tree{Kind: corrsm.BinomialInterleaved}, P)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	plan, err := corrsm.NewGossipPlan(P, int(T), func(r core.Rank, _ int) core.Rank {
		q := rng.IntN(P - 1)
		if q >= int(r) {
			q++
		}
		return core.Rank(q)
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &corrsm.Config{Topology: top, Correction: corrsm.Checked, Start: corrsm.Synchronized, Gossip: plan}
	sim, err := logp.New(logp.Options{L: 2, O: 1, SendSlotTimer: corrsm.TimerSendSlot,
		Calls:              []logp.Call{{At: 0, Proc: 0, Input: corrsm.Broadcast{Value: 42}}},
		Wakeups:            []logp.Wakeup{{At: T, Timer: corrsm.TimerStart, First: first}},
		CorrectionKinds:    []string{corrsm.KindCorrection},
		DisseminationKinds: []string{corrsm.KindTree},
		Log:                true})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := corrsm.Nodes(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(nodes, faults)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// §3.1 "this dissemination runs for a fixed period of time, after which all
// colored processes enter the correction phase", and §4.1 "gossiping
// processes will send T − t_c messages" (t_c: the coloring time; o = 1):
// with the end of gossip delivered first at T, every gossip send starts
// before T, every correction send at T or later, and a process colored by
// gossip at t_c < T sends exactly T − t_c gossip messages. Delivered with
// the timers instead, the send slots of instant T still gossip.
func TestSection41GossipSendsTMinusTc(t *testing.T) {
	const P, T = 1024, 20
	res := gossipRun(t, P, T, 3, true, core.RankSet{})
	gossip := make([]int64, P)
	for _, e := range res.Log {
		if e.Op != logp.OpSend {
			continue
		}
		switch {
		case e.Kind == corrsm.KindTree && e.Start >= T:
			t.Fatalf("gossip send %v at %d ≥ T", e, e.Start)
		case e.Kind == corrsm.KindCorrection && e.Start < T:
			t.Fatalf("correction send %v at %d < T", e, e.Start)
		}
		if e.Kind == corrsm.KindTree {
			gossip[e.Proc]++
		}
	}
	colored := 0
	for r, tc := range res.DeliveredAt {
		if tc >= 0 && tc < T {
			colored++
			if gossip[r] != T-tc {
				t.Fatalf("p%d colored at %d sent %d gossip messages, want %d", r, tc, gossip[r], T-tc)
			}
		}
	}
	if res.Uncolored != 0 || colored < 2 || colored == P {
		t.Fatalf("uncolored %d, colored by gossip %d of %d", res.Uncolored, colored, P)
	}
	late := gossipRun(t, P, T, 3, false, core.RankSet{})
	atT := 0
	for _, e := range late.Log {
		if e.Op == logp.OpSend && e.Kind == corrsm.KindTree && e.Start == T {
			atT++
		}
	}
	if atT == 0 {
		t.Fatal("a wakeup with the timers lets no gossip send start at T: the First option is untested")
	}
	t.Logf("P=%d T=%d: %d processes colored by gossip; without First %d gossip sends start at T", P, T, colored, atT)
}

// §3.1/§4.2: checked correction after gossip colors every live process for
// failures before correction (here: from the start), on several plans.
func TestSection31CorrectedGossipCheckedColorsAll(t *testing.T) {
	for seed := range uint64(5) {
		res := gossipRun(t, 2048, 24, seed, true, logp.RandomFaults(2048, 0.04, seed, 1))
		if res.Uncolored != 0 || res.Duplicates != 0 {
			t.Fatalf("seed %d: uncolored %d duplicates %d", seed, res.Uncolored, res.Duplicates)
		}
	}
}
