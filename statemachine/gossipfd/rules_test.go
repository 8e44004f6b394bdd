package gossipfd

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// TestMergeKeepsMaximum is Fig. 11: the receiver "adopts for each host the
// maximum heartbeat found"; an entry that grows records the round.
func TestMergeKeepsMaximum(t *testing.T) {
	cfg := &Config{N: 4, Variant: BRR, TGossip: 2, Cleanup: 3}
	n, _ := New(2, cfg)
	n.Step(core.Call(Start{}), nil)
	for range 3 {
		n.Step(core.Timer(TimerGossip), nil)
	}
	if _, err := n.Step(core.Receive(1, Gossip{Table: []uint64{5, 2, 99, 0}}), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Step(core.Receive(0, Gossip{Table: []uint64{4, 7, 0, 1}}), nil); err != nil {
		t.Fatal(err)
	}
	want := []uint64{5, 7, 3, 1} // own entry stays g = 3
	for x, h := range want {
		if n.Heartbeat(core.Rank(x)) != h {
			t.Errorf("hb[%d] = %d, want %d", x, n.Heartbeat(core.Rank(x)), h)
		}
		if n.LastInc(core.Rank(x)) != 3 {
			t.Errorf("lastInc[%d] = %d, want round 3", x, n.LastInc(core.Rank(x)))
		}
	}
}

// TestSuspicionAfterCleanup: with no news at all, x is suspected in the
// first round g with g − 0 > T_cleanup, i.e. round T_cleanup + 1.
func TestSuspicionAfterCleanup(t *testing.T) {
	for _, C := range []uint64{1, 2, 5} {
		cfg := &Config{N: 2, Variant: BRR, TGossip: 2, Cleanup: C}
		w := newWorld(t, cfg)
		w.dead[1] = true
		w.rounds(int(C) + 3)
		g, ok := w.suspectedBy(0, 1)
		if !ok || g != C+1 {
			t.Errorf("C=%d: suspected in round %d (%v), want %d", C, g, ok, C+1)
		}
		if len(w.declarations[0]) != 1 {
			t.Errorf("C=%d: declarations %v, want one (no ping phase)", C, w.declarations[0])
		}
	}
}

// TestNoSuspicionFailureFree: with the paper's settings and no crash, no
// host is ever suspected, for every deterministic variant and small n.
func TestNoSuspicionFailureFree(t *testing.T) {
	for _, v := range []Variant{RR, BRR, DBRR} {
		for n := 2; n <= 12; n++ {
			C, _ := PaperCleanup(v, n, CleanupMargin)
			w := newWorld(t, &Config{N: n, Variant: v, TGossip: 4, Cleanup: uint64(C)})
			w.rounds(5 * Cycle(v, n))
			for s := range n {
				if len(w.suspicions[s]) > 0 {
					t.Errorf("%v n=%d: host %d suspected %v", v, n, s, w.suspicions[s])
				}
			}
		}
	}
}

// TestCompleteness: a crashed host is declared by every live host.
func TestCompleteness(t *testing.T) {
	for _, v := range []Variant{RR, BRR, DBRR} {
		for _, ping := range []bool{false, true} {
			n := 8
			C, _ := PaperCleanup(v, n, CleanupMargin)
			w := newWorld(t, &Config{N: n, Variant: v, TGossip: 4, Cleanup: uint64(C), Ping: ping, PingTimeout: 3})
			w.rounds(10)
			w.dead[5] = true
			w.rounds(3 * C)
			for s := range n {
				if s == 5 {
					continue
				}
				if !w.nodes[s].Declared().Has(5) {
					t.Errorf("%v ping=%v: host %d has not declared p5 after %d rounds", v, ping, s, 3*C)
				}
				if w.nodes[s].Declared().Len() != 1 {
					t.Errorf("%v ping=%v: host %d declared %v", v, ping, s, w.nodes[s].Declared())
				}
			}
		}
	}
}

// TestStepRejectsImpossibleEvents: errors, and the state is unchanged.
func TestStepRejectsImpossibleEvents(t *testing.T) {
	cfg := &Config{N: 3, Variant: RR, TGossip: 2, Cleanup: 2}
	n, _ := New(1, cfg)
	if _, err := n.Step(core.Timer(TimerGossip), nil); err == nil {
		t.Error("timer before Start accepted")
	}
	n.Step(core.Call(Start{}), nil)
	before := string(n.AppendBinary(nil))
	for _, ev := range []core.Event{
		core.Call(Start{}),
		core.Receive(1, Ping{}),
		core.Receive(3, Ping{}),
		core.Receive(0, Gossip{Table: []uint64{1, 2}}),
		core.Timer(TimerPingBase), // no ping phase configured
		core.Timer(99),
		core.Suspect(0),
		{Kind: 77},
	} {
		if _, err := n.Step(ev, nil); err == nil {
			t.Errorf("%v accepted", ev)
		}
		if string(n.AppendBinary(nil)) != before {
			t.Fatalf("%v changed the state", ev)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	for name, c := range map[string]Config{
		"n=1":          {N: 1, Variant: RR, TGossip: 1, Cleanup: 1},
		"tgossip 0":    {N: 3, Variant: RR, Cleanup: 1},
		"cleanup 0":    {N: 3, Variant: RR, TGossip: 1},
		"ping timeout": {N: 3, Variant: RR, TGossip: 2, Cleanup: 1, Ping: true, PingTimeout: 2},
		"random, plan": {N: 3, Variant: Random, TGossip: 2, Cleanup: 1},
		"offset":       {N: 3, Variant: BRR, TGossip: 2, Cleanup: 1, Offsets: []int{0, 1, 2}},
		"mutant":       {N: 3, Variant: BRR, TGossip: 2, Cleanup: 1, Mutant: "nope"},
		"variant":      {N: 3, Variant: 9, TGossip: 2, Cleanup: 1},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestMaxRoundsEndsTheRun: the gossip timer is not re-armed after
// MaxRounds rounds.
func TestMaxRoundsEndsTheRun(t *testing.T) {
	cfg := &Config{N: 3, Variant: RR, TGossip: 2, Cleanup: 2, MaxRounds: 2}
	n, _ := New(0, cfg)
	n.Step(core.Call(Start{}), nil)
	for g := 1; g <= 2; g++ {
		eff, _ := n.Step(core.Timer(TimerGossip), nil)
		armed := false
		for _, e := range eff {
			armed = armed || e.Kind == core.EffSetTimer && e.Timer == TimerGossip
		}
		if armed != (g < 2) {
			t.Errorf("round %d: gossip timer re-armed %v", g, armed)
		}
	}
}
