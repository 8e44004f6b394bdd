package fuzz

import (
	"bytes"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/paxos"
)

// paxosFuzzConfigs are the groups the paxos targets draw from: Classic
// with 3 and 5 processes, Fig. 2.1's separate roles, Parallel Paxos's
// co-located proposer-learner-acceptor.
var paxosFuzzConfigs = []paxos.Config{
	paxos.Classic(3),
	paxos.Classic(5),
	{N: 7, Proposers: []core.Rank{0, 1}, Acceptors: []core.Rank{2, 3, 4}, Learners: []core.Rank{5, 6}},
	{N: 3, Proposers: []core.Rank{0}, Acceptors: []core.Rank{0, 1, 2}, Learners: []core.Rank{0}},
}

// paxosEvents is every kind of event a paxos node takes, for a group of n.
func paxosEvents(n int) []core.Event {
	v := paxos.Command{Origin: 0, Data: "v"}
	return []core.Event{
		core.Call(paxos.Propose{Data: "x"}), core.Call(paxos.Lead{}), core.Timer(paxos.TimerRetransmit),
		core.Restart(), core.Suspect(0), core.Recovered(0), core.Suspect(core.Rank(n - 1)),
		core.Receive(0, paxos.Request{Cmd: v}), core.Receive(0, paxos.Prepare{B: 1}),
		core.Receive(1, paxos.Promise{B: 2, Votes: []paxos.Vote{{Inst: 0, B: 1, V: v}}}),
		core.Receive(0, paxos.Accept{B: 1, Inst: 0, V: v}), core.Receive(1, paxos.Accepted{B: 2, Inst: 1, V: paxos.Noop}),
		core.Receive(2, paxos.Nack{B: 1, Promised: 5}), core.Receive(0, paxos.Decided{From: 0, Values: []paxos.Command{v}}),
		core.Receive(core.Rank(n-1), paxos.Learned{Next: 3}),
	}
}

// FuzzPaxosDecode: data[0] % 3 picks paxos.DecodeMessage, paxos.DecodeNode
// (data[1] picks the configuration and the rank) or paxos.DecodeInput; the
// rest is the input. Bad bytes give an error, never a panic; what decodes
// re-encodes to the same bytes, and a decoded node takes every kind of
// event (and its Recover) without panicking.
func FuzzPaxosDecode(f *testing.F) {
	v := paxos.Command{Origin: 1, Data: "det"}
	for _, m := range []core.Message{
		paxos.Request{Cmd: v}, paxos.Prepare{B: 2, From: 1},
		paxos.Promise{B: 2, Votes: []paxos.Vote{{Inst: 0, B: 1, V: v}, {Inst: 2, B: 2, V: paxos.Noop}}},
		paxos.Accept{B: 1, Inst: 3, V: v}, paxos.Accepted{B: 1, V: paxos.Noop}, paxos.Nack{B: 1, Promised: 2},
		paxos.Decided{From: 1, Values: []paxos.Command{v, paxos.Noop}}, paxos.Learned{Next: 2},
	} {
		f.Add(append([]byte{0, 0}, m.AppendBinary(nil)...))
	}
	f.Add(append([]byte{2, 0}, paxos.Propose{Data: "x"}.AppendBinary(nil)...))
	for ci, cfg := range paxosFuzzConfigs {
		nodes, _ := paxos.NewAll(cfg)
		_, _ = nodes[0].Step(core.Call(paxos.Lead{}), nil)
		_, _ = nodes[0].Step(core.Call(paxos.Propose{Data: "x"}), nil)
		for r, n := range nodes {
			for _, ev := range paxosEvents(cfg.N) {
				_, _ = n.Step(ev, nil)
			}
			f.Add(append([]byte{1, byte(ci + 4*r)}, n.AppendBinary(nil)...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		in := data[2:]
		switch data[0] % 3 {
		case 0:
			m, err := paxos.DecodeMessage(in, 7)
			if err == nil && !bytes.Equal(m.AppendBinary(nil), in) {
				t.Fatalf("message %v re-encodes differently", m)
			}
		case 1:
			cfg := paxosFuzzConfigs[int(data[1])%len(paxosFuzzConfigs)]
			r := core.Rank(int(data[1]/4) % cfg.N)
			n, err := paxos.DecodeNode(in, r, cfg)
			if err != nil {
				return
			}
			if !bytes.Equal(n.AppendBinary(nil), in) {
				t.Fatalf("%v re-encodes differently", n)
			}
			_ = n.Recover()
			for _, ev := range paxosEvents(cfg.N) {
				_, _ = n.Step(ev, nil)
			}
		case 2:
			c, err := paxos.DecodeInput(in)
			if err == nil && !bytes.Equal(c.AppendBinary(nil), in) {
				t.Fatalf("input %v re-encodes differently", c)
			}
		}
	})
}

// FuzzPaxosStep: data[0] picks the configuration; then each byte pair is
// an event: the first byte picks the node, the second the event among
// paxosEvents or, when at least len(paxosEvents), the delivery of a
// message in flight. A node's step never panics; an event it refuses
// leaves its state unchanged; every state and message it makes
// round-trips through its decoder.
func FuzzPaxosStep(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 20, 1, 20, 2, 20, 0, 20, 0, 20})
	f.Add([]byte{2, 1, 1, 0, 0, 2, 20, 3, 20, 4, 20, 1, 2})
	f.Add([]byte{3, 0, 1, 0, 0, 0, 20, 1, 20, 2, 20, 0, 20, 0, 2, 0, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 {
			return
		}
		cfg := paxosFuzzConfigs[int(data[0])%len(paxosFuzzConfigs)]
		nodes, err := paxos.NewAll(cfg)
		if err != nil {
			t.Fatal(err)
		}
		type env struct {
			from, to core.Rank
			m        core.Message
		}
		var flight []env
		evs := paxosEvents(cfg.N)
		for i := 1; i+1 < len(data) && i < 400; i += 2 {
			p := core.Rank(int(data[i]) % cfg.N)
			var ev core.Event
			if k := int(data[i+1]); k < len(evs) {
				ev = evs[k]
			} else if len(flight) > 0 {
				e := flight[(k-len(evs))%len(flight)]
				flight = append(flight[:0:0], flight...)
				j := (k - len(evs)) % len(flight)
				flight = append(flight[:j], flight[j+1:]...)
				p, ev = e.to, core.Receive(e.from, e.m)
			} else {
				continue
			}
			n := nodes[p]
			before := n.AppendBinary(nil)
			effs, err := n.Step(ev, nil)
			if err != nil {
				if !bytes.Equal(n.AppendBinary(nil), before) {
					t.Fatalf("%v: refused %v but changed", p, ev)
				}
				continue
			}
			b := n.AppendBinary(nil)
			if d, err := paxos.DecodeNode(b, p, cfg); err != nil || !bytes.Equal(d.AppendBinary(nil), b) {
				t.Fatalf("%v does not round-trip: %v", n, err)
			}
			for _, e := range effs {
				if e.Kind != core.EffSend {
					continue
				}
				mb := e.Msg.AppendBinary(nil)
				if _, err := paxos.DecodeMessage(mb, cfg.N); err != nil {
					t.Fatalf("%v does not decode: %v", e.Msg, err)
				}
				flight = append(flight, env{p, e.To, e.Msg})
			}
		}
	})
}
