package gossipfd

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// world is a minimal synchronous driver for the tests of this package:
// every round, each live node's gossip timer fires (ascending host), then
// every message is delivered (in send order, new messages too, until none is
// left: delays below T_gossip), then the ping timers armed in the round fire
// (PingTimeout < TGossip). Crashed hosts neither step nor receive.
type world struct {
	t      *testing.T
	nodes  []*Node
	dead   []bool
	timers [][]uint64 // armed ping timers per host
	// suspicions[s] lists (round, x) for every host x that s newly
	// suspected or declared; declarations likewise.
	suspicions, declarations [][][2]uint64
	sent                     int // messages sent
}

func newWorld(t *testing.T, cfg *Config) *world {
	t.Helper()
	w := &world{t: t, dead: make([]bool, cfg.N), timers: make([][]uint64, cfg.N),
		suspicions: make([][][2]uint64, cfg.N), declarations: make([][][2]uint64, cfg.N)}
	for s := range cfg.N {
		n, err := New(core.Rank(s), cfg)
		if err != nil {
			t.Fatal(err)
		}
		w.nodes = append(w.nodes, n)
		w.step(s, core.Call(Start{}))
	}
	return w
}

type envelope struct {
	from, to core.Rank
	m        core.Message
}

// step applies ev to host s and returns the messages it sends.
func (w *world) step(s int, ev core.Event) []envelope {
	w.t.Helper()
	n := w.nodes[s]
	before := n.Suspected().Union(n.Declared())
	eff, err := n.Step(ev, nil)
	if err != nil {
		w.t.Fatalf("%v: %v: %v", core.Rank(s), ev, err)
	}
	var msgs []envelope
	for _, e := range eff {
		switch e.Kind {
		case core.EffSend:
			msgs = append(msgs, envelope{core.Rank(s), e.To, e.Msg})
			w.sent++
		case core.EffSetTimer:
			if e.Timer != TimerGossip {
				w.timers[s] = append(w.timers[s], e.Timer)
			}
		case core.EffSuspect:
			w.declarations[s] = append(w.declarations[s], [2]uint64{n.Round(), uint64(e.Peer)})
		}
	}
	now := n.Suspected().Union(n.Declared())
	now.Each(func(x core.Rank) {
		if !before.Has(x) {
			w.suspicions[s] = append(w.suspicions[s], [2]uint64{n.Round(), uint64(x)})
		}
	})
	return msgs
}

// round runs one round.
func (w *world) round() {
	var q []envelope
	for s := range w.nodes {
		if !w.dead[s] {
			q = append(q, w.step(s, core.Timer(TimerGossip))...)
		}
	}
	for len(q) > 0 {
		e := q[0]
		q = q[1:]
		if !w.dead[e.to] {
			q = append(q, w.step(int(e.to), core.Receive(e.from, e.m))...)
		}
	}
	for s := range w.nodes {
		ts := w.timers[s]
		w.timers[s] = nil
		for _, id := range ts {
			if !w.dead[s] {
				w.step(s, core.Timer(id))
			}
		}
	}
}

func (w *world) rounds(k int) {
	for range k {
		w.round()
	}
}

// suspectedBy reports whether s ever suspected x, and the first round.
func (w *world) suspectedBy(s, x int) (uint64, bool) {
	for _, e := range w.suspicions[s] {
		if e[1] == uint64(x) {
			return e[0], true
		}
	}
	return 0, false
}
