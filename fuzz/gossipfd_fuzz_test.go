package fuzz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// gossipfdConfig is the detector FuzzGossipfdSchedule and FuzzGossipfdDecode
// run: four hosts, DBRR, the ping phase on.
func gossipfdConfig() *gossipfd.Config {
	return &gossipfd.Config{N: 4, Variant: gossipfd.DBRR, TGossip: 4, Cleanup: 2, Ping: true, PingTimeout: 3}
}

// FuzzGossipfdDecode: any bytes either fail to decode with an error or
// decode to a state (message) that encodes back to the same bytes and whose
// clone does too.
func FuzzGossipfdDecode(f *testing.F) {
	cfg := gossipfdConfig()
	n, _ := gossipfd.New(1, cfg)
	f.Add(n.AppendBinary(nil))
	f.Add(gossipfd.Gossip{Table: []uint64{1, 2, 3, 4}}.AppendBinary(nil))
	f.Add([]byte{1, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := gossipfd.DecodeNode(b, 1, cfg); err == nil {
			if string(n.AppendBinary(nil)) != string(b) || string(n.Clone().AppendBinary(nil)) != string(b) {
				t.Fatalf("% x decodes to %v, which encodes differently", b, n)
			}
		}
		if m, err := gossipfd.DecodeMessage(b, cfg.N); err == nil && string(m.AppendBinary(nil)) != string(b) {
			t.Fatalf("% x decodes to %v, which encodes differently", b, m)
		}
	})
}

// FuzzGossipfdSchedule: every byte string is an asynchronous schedule of a
// four-host detector (no timing at all: any timer may fire before any
// message arrives). Each byte picks the next action among those enabled:
// a host's gossip timer, a ping timer, the delivery of a message in flight,
// or (once) a crash. Every step of a live host must be accepted, and Fig.
// 11's merge by maximum and the declaration must show: no heartbeat ever
// decreases, no declaration is ever withdrawn, and every state encodes and
// decodes back to itself.
func FuzzGossipfdSchedule(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{9, 9, 9, 9, 0, 0, 0, 0, 200, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := gossipfdSchedule(gossipfdConfig(), data); err != nil {
			t.Fatal(err)
		}
	})
}

// gossipfdSchedule runs the schedule data and reports the first broken
// check (see FuzzGossipfdSchedule).
func gossipfdSchedule(cfg *gossipfd.Config, data []byte) error {
	type inflight struct {
		from, to core.Rank
		m        core.Message
	}
	nodes := make([]*gossipfd.Node, cfg.N)
	timers := make([][]uint64, cfg.N)
	dead := make([]bool, cfg.N)
	crashed := false
	var msgs []inflight
	step := func(s int, ev core.Event) error {
		before := nodes[s].Clone().(*gossipfd.Node)
		eff, err := nodes[s].Step(ev, nil)
		if err != nil {
			return fmt.Errorf("%v refused %v: %v", core.Rank(s), ev, err)
		}
		n := nodes[s]
		for x := range core.Rank(cfg.N) {
			if n.Heartbeat(x) < before.Heartbeat(x) {
				return fmt.Errorf("%v: hb[%v] decreased on %v", core.Rank(s), x, ev)
			}
		}
		if !before.Declared().SubsetOf(n.Declared()) {
			return fmt.Errorf("%v: a declaration was withdrawn on %v", core.Rank(s), ev)
		}
		if d, err := gossipfd.DecodeNode(n.AppendBinary(nil), core.Rank(s), cfg); err != nil || string(d.AppendBinary(nil)) != string(n.AppendBinary(nil)) {
			return fmt.Errorf("%v: state does not round-trip: %v", n, err)
		}
		for _, e := range eff {
			switch e.Kind {
			case core.EffSend:
				msgs = append(msgs, inflight{core.Rank(s), e.To, e.Msg})
			case core.EffSetTimer:
				if !slices.Contains(timers[s], e.Timer) {
					timers[s] = append(timers[s], e.Timer)
				}
			}
		}
		return nil
	}
	for s := range cfg.N {
		var err error
		if nodes[s], err = gossipfd.New(core.Rank(s), cfg); err != nil {
			return err
		}
		if err := step(s, core.Call(gossipfd.Start{})); err != nil {
			return err
		}
	}
	type action struct {
		kind int // 0 timer, 1 deliver, 2 crash
		s, i int
	}
	for _, b := range data {
		var acts []action
		for s := range cfg.N {
			if dead[s] {
				continue
			}
			for i := range timers[s] {
				acts = append(acts, action{0, s, i})
			}
			if !crashed {
				acts = append(acts, action{2, s, 0})
			}
		}
		for i, m := range msgs {
			if !dead[m.to] {
				acts = append(acts, action{1, int(m.to), i})
			}
		}
		if len(acts) == 0 {
			return nil
		}
		var err error
		switch a := acts[int(b)%len(acts)]; a.kind {
		case 0:
			id := timers[a.s][a.i]
			timers[a.s] = slices.Delete(timers[a.s], a.i, a.i+1)
			err = step(a.s, core.Timer(id))
		case 1:
			m := msgs[a.i]
			msgs = slices.Delete(msgs, a.i, a.i+1)
			err = step(a.s, core.Receive(m.from, m.m))
		case 2:
			dead[a.s], crashed = true, true
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// TestGossipfdScheduleCatchesMergeMutant: the schedule checks are not
// vacuous: with merge-last-received some seeded schedule lowers a
// heartbeat.
func TestGossipfdScheduleCatchesMergeMutant(t *testing.T) {
	cfg := gossipfdConfig()
	cfg.Mutant = gossipfd.MutantMergeLastReceived
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		data := make([]byte, 60)
		for j := range data {
			data[j] = byte(rng.IntN(256))
		}
		if err := gossipfdSchedule(cfg, data); err != nil {
			t.Logf("schedule %d: %v", i, err)
			return
		}
		if err := gossipfdSchedule(gossipfdConfig(), data); err != nil {
			t.Fatalf("the correct detector fails schedule %d: %v", i, err)
		}
	}
	t.Error("no schedule caught merge-last-received")
}
