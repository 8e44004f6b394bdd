package correction

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// gossipConfig: P processes, a plan whose partner i of r is r+1+i (mod P,
// skipping r), so the tests can name every send.
func gossipConfig(t *testing.T, P, rounds int, c CorrectionKind) *Config {
	t.Helper()
	top, err := NewTopology(Tree{Kind: BinomialInterleaved}, P)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewGossipPlan(P, rounds, func(r core.Rank, i int) core.Rank {
		return core.Rank((int(r) + 1 + i%(P-1)) % P)
	})
	if err != nil {
		t.Fatal(err)
	}
	return &Config{Topology: top, Correction: c, Distance: 1, Start: Synchronized, Gossip: plan}
}

func sendsOf(out []core.Effect) (to []core.Rank, kinds []string, slot bool) {
	for _, e := range out {
		switch e.Kind {
		case core.EffSend:
			to = append(to, e.To)
			kinds = append(kinds, e.Msg.Kind())
		case core.EffSetTimer:
			slot = slot || e.Timer == TimerSendSlot
		}
	}
	return to, kinds, slot
}

func mustStep(t *testing.T, n *Node, ev core.Event) []core.Effect {
	t.Helper()
	out, err := n.Step(ev, nil)
	if err != nil {
		t.Fatalf("%v: %v", ev, err)
	}
	return out
}

// §3.1 (G2): "the root sends the broadcast payload to a random subset of
// other processes": it delivers, sends nothing at once, and then one gossip
// message per send slot to its partners in plan order, asking for another
// slot while partners remain (§4.1: one message every o from coloring on).
func TestSection31GossipRootSendsOnePartnerPerSlot(t *testing.T) {
	cfg := gossipConfig(t, 8, 3, Checked)
	n, _ := New(cfg, 0)
	out := mustStep(t, n, core.Call(Broadcast{Value: 7}))
	if to, _, slot := sendsOf(out); len(out) == 0 || out[0].Kind != core.EffDeliver || len(to) != 0 || !slot {
		t.Fatalf("broadcast: %v", out)
	}
	for i, want := range cfg.Gossip.Partners(0) {
		to, kinds, slot := sendsOf(mustStep(t, n, core.Timer(TimerSendSlot)))
		if len(to) != 1 || to[0] != want || kinds[0] != KindTree || slot != (i+1 < cfg.Gossip.Rounds()) {
			t.Fatalf("slot %d: sends %v %v, slot again %t; want one gossip message to %v", i, to, kinds, slot, want)
		}
	}
	if n.Sent() != 3 || !n.Participant() {
		t.Fatalf("sent %d participant %t", n.Sent(), n.Participant())
	}
}

// §3.1 (G3): "when a new process is thus colored, it starts sending
// messages as well": the receiver of a gossip message is colored by
// dissemination, takes part in correction and gossips to its own partners;
// a second gossip message is a masked duplicate (§2.1).
func TestSection31GossipColoredProcessGossips(t *testing.T) {
	cfg := gossipConfig(t, 8, 2, Checked)
	n, _ := New(cfg, 5)
	out := mustStep(t, n, core.Receive(0, NewTreeMsg(7)))
	if to, _, slot := sendsOf(out); out[0].Kind != core.EffDeliver || len(to) != 0 || !slot || n.Via() != ViaTree || !n.Participant() {
		t.Fatalf("first gossip message: %v, %v", out, n)
	}
	if out := mustStep(t, n, core.Receive(3, NewTreeMsg(7))); len(out) != 0 {
		t.Fatalf("duplicate not masked: %v", out)
	}
	to, _, _ := sendsOf(mustStep(t, n, core.Timer(TimerSendSlot)))
	if len(to) != 1 || to[0] != 6 {
		t.Fatalf("first gossip send %v, want p6", to)
	}
}

// §3.1/§3.3 (G4): gossip runs "for a fixed period of time, after which all
// colored processes enter the correction phase" at the same moment: after
// TimerStart the next slot sends a correction message, never gossip; a
// process colored by gossip after TimerStart does not gossip but corrects.
func TestSection33GossipEndsAtSynchronizedStart(t *testing.T) {
	cfg := gossipConfig(t, 8, 5, Checked)
	n, _ := New(cfg, 2)
	mustStep(t, n, core.Receive(0, NewTreeMsg(7)))
	mustStep(t, n, core.Timer(TimerSendSlot)) // one gossip message
	if out := mustStep(t, n, core.Timer(TimerStart)); len(out) != 0 {
		t.Fatalf("TimerStart with the slot armed: %v", out)
	}
	_, kinds, _ := sendsOf(mustStep(t, n, core.Timer(TimerSendSlot)))
	if len(kinds) != 1 || kinds[0] != KindCorrection {
		t.Fatalf("after TimerStart: %v, want one correction message", kinds)
	}

	late, _ := New(cfg, 6)
	mustStep(t, late, core.Timer(TimerStart))
	if to, _, slot := sendsOf(mustStep(t, late, core.Receive(0, NewTreeMsg(7)))); len(to) != 0 || !slot || !late.Participant() {
		t.Fatalf("late gossip: sends %v slot %t participant %t", to, slot, late.Participant())
	}
	_, kinds, _ = sendsOf(mustStep(t, late, core.Timer(TimerSendSlot)))
	if len(kinds) != 1 || kinds[0] != KindCorrection {
		t.Fatalf("late-colored process sent %v, want correction", kinds)
	}
}

// G4, asynchronous reading: without a clock the partner sequence bounds the
// gossip phase; then the process waits for the synchronized start.
func TestSection31GossipPartnersExhausted(t *testing.T) {
	cfg := gossipConfig(t, 4, 2, Checked)
	n, _ := New(cfg, 0)
	mustStep(t, n, core.Call(Broadcast{Value: 7}))
	mustStep(t, n, core.Timer(TimerSendSlot))
	if _, _, slot := sendsOf(mustStep(t, n, core.Timer(TimerSendSlot))); slot {
		t.Fatal("slot asked for after the last partner")
	}
	if _, err := n.Step(core.Timer(TimerSendSlot), nil); err == nil {
		t.Fatal("unarmed slot accepted")
	}
	zero := gossipConfig(t, 4, 0, Checked)
	m, _ := New(zero, 0)
	if _, _, slot := sendsOf(mustStep(t, m, core.Call(Broadcast{Value: 7}))); slot {
		t.Fatal("zero rounds: slot asked for")
	}
}

// §2.1 Termination: a process sends at most Rounds() gossip messages plus
// 2(P−1) correction messages, not |children| + 2(P−1).
func TestSection21GossipSendBound(t *testing.T) {
	cfg := gossipConfig(t, 8, 3, Checked)
	for r := range 8 {
		n, _ := New(cfg, core.Rank(r))
		if n.SendBound() != 3+2*7 {
			t.Fatalf("p%d bound %d", r, n.SendBound())
		}
	}
}

func TestGossipPlanAndConfigErrors(t *testing.T) {
	self := func(r core.Rank, _ int) core.Rank { return r }
	out := func(core.Rank, int) core.Rank { return 9 }
	for _, c := range []struct {
		P, rounds int
		f         func(core.Rank, int) core.Rank
		want      string
	}{{1, 1, out, "at least 2"}, {4, -1, out, "rounds"}, {4, 1, self, "other than"}, {4, 1, out, "0..3"}} {
		if _, err := NewGossipPlan(c.P, c.rounds, c.f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("P=%d rounds=%d: %v, want %q", c.P, c.rounds, err, c.want)
		}
	}
	cfg := gossipConfig(t, 8, 1, Checked)
	cfg.Start = Overlapped
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "§3.3") {
		t.Fatalf("overlapped gossip: %v", err)
	}
	other := gossipConfig(t, 6, 1, Checked)
	cfg = gossipConfig(t, 8, 1, Checked)
	cfg.Gossip = other.Gossip
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "P=6") {
		t.Fatalf("plan for another P: %v", err)
	}
}

// gossipWorld runs one Corrected Gossip broadcast with a plain driver:
// messages FIFO, send slots fired when nothing is in flight, TimerStart
// once the gossip has settled, processes in failed never step. It checks
// §2.1 Integrity (only colored processes send) and the send bound.
func gossipWorld(t *testing.T, cfg *Config, failed map[core.Rank]bool) []*Node {
	t.Helper()
	ms, err := Nodes(cfg)
	if err != nil {
		t.Fatal(err)
	}
	nodes := make([]*Node, len(ms))
	for i, m := range ms {
		nodes[i] = m.(*Node)
	}
	type msg struct {
		from, to core.Rank
		m        core.Message
	}
	var queue []msg
	armed := map[core.Rank]bool{}
	step := func(p core.Rank, ev core.Event) {
		out, err := nodes[p].Step(ev, nil)
		if err != nil {
			t.Fatalf("%v %v: %v", p, ev, err)
		}
		for _, e := range out {
			switch e.Kind {
			case core.EffSend:
				if !nodes[p].Colored() {
					t.Fatalf("%v sent while uncolored", p)
				}
				if !failed[e.To] {
					queue = append(queue, msg{p, e.To, e.Msg})
				}
			case core.EffSetTimer:
				if e.Timer == TimerSendSlot {
					armed[p] = true
				}
			}
		}
		if nodes[p].Sent() > nodes[p].SendBound() {
			t.Fatalf("%v sent %d > bound %d", p, nodes[p].Sent(), nodes[p].SendBound())
		}
	}
	settle := func() {
		for len(queue) > 0 || len(armed) > 0 {
			if len(queue) > 0 {
				m := queue[0]
				queue = queue[1:]
				step(m.to, core.Receive(m.from, m.m))
				continue
			}
			for p := range nodes { // lowest armed rank first: deterministic
				if armed[core.Rank(p)] {
					delete(armed, core.Rank(p))
					step(core.Rank(p), core.Timer(TimerSendSlot))
					break
				}
			}
		}
	}
	step(0, core.Call(Broadcast{Value: 42}))
	settle()
	for p := range nodes {
		if !failed[core.Rank(p)] {
			step(core.Rank(p), core.Timer(TimerStart))
		}
	}
	settle()
	return nodes
}

// §3.1: gossip alone leaves processes uncolored ("due to potential failures
// and the random nature of gossip, the protocol cannot guarantee that all
// live processes are actually colored"); checked correction then colors
// every live process, for any failures before correction.
func TestSection31CheckedCorrectsWhatGossipMissed(t *testing.T) {
	const P, rounds = 64, 2
	missedByGossip := 0
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		failed := map[core.Rank]bool{}
		for len(failed) < 6 {
			failed[core.Rank(1+rng.IntN(P-1))] = true
		}
		for _, c := range []CorrectionKind{NoCorrection, Checked} {
			cfg := gossipConfig(t, P, rounds, c)
			plan, _ := NewGossipPlan(P, rounds, func(r core.Rank, _ int) core.Rank {
				q := rng.IntN(P - 1)
				if q >= int(r) {
					q++
				}
				return core.Rank(q)
			})
			cfg.Gossip = plan
			uncolored := 0
			for p, n := range gossipWorld(t, cfg, failed) {
				if !failed[core.Rank(p)] && !n.Colored() {
					uncolored++
				}
			}
			if c == NoCorrection {
				missedByGossip += uncolored
			} else if uncolored != 0 {
				t.Fatalf("seed %d: checked correction left %d live processes uncolored", seed, uncolored)
			}
		}
	}
	if missedByGossip == 0 {
		t.Fatal("gossip alone colored everybody in every run: the test shows nothing")
	}
	t.Logf("gossip alone left %d live processes uncolored over 20 runs; checked correction: none", missedByGossip)
}
