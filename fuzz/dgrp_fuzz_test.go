package fuzz

import (
	"bytes"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	dgrpmodel "github.com/ftkernel/ftkernel/models/dgrp"
	"github.com/ftkernel/ftkernel/statemachine/dgrp"
	"github.com/ftkernel/ftkernel/statemachine/paxos"
)

// dgrpFuzzConfigs are the groups the dgrp targets draw from: three and
// four processes, ζ 1 and 2, reliable and lossy channels, the literal
// AMBIGUOUS-2(a), the Paxos adapter of models/dgrp for re-admission.
var dgrpFuzzConfigs = []dgrp.Config{
	{N: 3, Zeta: 1, Rounds: 3, Consensus: dgrpmodel.Paxos{}},
	{N: 3, Zeta: 2, Rounds: 4, Lossy: true, Consensus: dgrpmodel.Paxos{}},
	{N: 4, Zeta: 1, Rounds: 3, IgnoreWhenOut: true, Consensus: dgrpmodel.Paxos{}},
	{N: 4, Zeta: 2, Rounds: 2, Lossy: true, Consensus: dgrpmodel.Paxos{}},
}

// dgrpEvents is every kind of event a dgrp node takes, for a group of n.
func dgrpEvents(n int) []core.Event {
	last := core.Rank(n - 1)
	return []core.Event{
		core.Timer(dgrp.TimerTick), core.Timer(dgrp.TimerConsensus),
		core.Receive(1, dgrp.Events{R: 1, List: []dgrp.Event{{K: last, C: 1}}, Syndrome: make([]uint32, n)}),
		core.Receive(last, dgrp.Events{R: 2}), core.Receive(1, dgrp.Ack{R: 1}),
		core.Receive(1, dgrp.Readmit{K: last, C: 1}), core.Receive(last, dgrp.Readmit{K: 0, C: 3}),
		core.Receive(1, dgrp.Decide{K: last, C: 1}),
		core.Receive(0, dgrp.Wrap{M: paxos.Prepare{B: 1}}),
		core.Receive(1, dgrp.Wrap{M: paxos.Accepted{B: 1, V: paxos.Command{Origin: 0, Data: dgrp.Command(last, 1)}}}),
		core.Suspect(1),
	}
}

// FuzzDgrpDecode: data[0] % 2 picks dgrp.DecodeMessage or dgrp.DecodeNode;
// data[1] picks the configuration and the rank; the rest is the input. Bad
// bytes give an error, never a panic; what decodes re-encodes to the same
// bytes, and a decoded node takes every kind of event without panicking.
func FuzzDgrpDecode(f *testing.F) {
	for _, m := range []core.Message{
		dgrp.Events{R: 2, List: []dgrp.Event{{K: 1, C: 3}}, Syndrome: []uint32{0, 3, 0}}, dgrp.Events{R: 1},
		dgrp.Ack{R: 4}, dgrp.Readmit{K: 2, C: 5}, dgrp.Decide{K: 1, C: 1},
		dgrp.Wrap{M: paxos.Accept{B: 1, Inst: 0, V: paxos.Command{Origin: 0, Data: dgrp.Command(2, 1)}}},
	} {
		f.Add(append([]byte{0, 0}, m.AppendBinary(nil)...))
	}
	for ci, cfg := range dgrpFuzzConfigs {
		for r := range core.Rank(cfg.N) {
			n, err := dgrp.New(r, cfg)
			if err != nil {
				f.Fatal(err)
			}
			_, _ = n.Step(core.Call(dgrp.Start{Slow: []dgrp.Slow{{Round: 1, Peer: (r + 1) % core.Rank(cfg.N)}}}), nil)
			for _, ev := range dgrpEvents(cfg.N) {
				_, _ = n.Step(ev, nil)
			}
			f.Add(append([]byte{1, byte(ci + 4*int(r))}, n.AppendBinary(nil)...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		in := data[2:]
		cfg := dgrpFuzzConfigs[int(data[1])%len(dgrpFuzzConfigs)]
		switch data[0] % 2 {
		case 0:
			m, err := dgrp.DecodeMessage(in, cfg.N, cfg.Consensus)
			if err == nil && !bytes.Equal(m.AppendBinary(nil), in) {
				t.Fatalf("message %v re-encodes differently", m)
			}
		case 1:
			r := core.Rank(int(data[1]/4) % cfg.N)
			n, err := dgrp.DecodeNode(in, r, cfg)
			if err != nil {
				return
			}
			if !bytes.Equal(n.AppendBinary(nil), in) {
				t.Fatalf("%v re-encodes differently", n)
			}
			for _, ev := range dgrpEvents(cfg.N) {
				_, _ = n.Step(ev, nil)
			}
		}
	})
}

// FuzzDgrpStep: data[0] picks the configuration, data[1] and data[2] two
// slow tests (tester, peer and round from each byte); then each byte pair
// is an event: the first byte picks the node, the second the event among
// dgrpEvents or, when at least len(dgrpEvents), the delivery of a message
// in flight (the Start calls come first). A node's step never panics; an
// event it refuses leaves its state unchanged; every state and message it
// makes round-trips through its decoder.
func FuzzDgrpStep(f *testing.F) {
	f.Add([]byte{0, 0x12, 0x25, 0, 0, 1, 0, 2, 0, 0, 11, 1, 11, 2, 11, 0, 11, 0, 0, 1, 0, 2, 0, 0, 11})
	f.Add([]byte{1, 0x01, 0x00, 0, 0, 1, 0, 2, 0, 0, 12, 1, 13, 2, 14, 0, 0, 0, 15})
	f.Add([]byte{2, 0x31, 0x07, 0, 0, 1, 0, 2, 0, 3, 0, 0, 11, 1, 11, 2, 11, 3, 11, 0, 0, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		cfg := dgrpFuzzConfigs[int(data[0])%len(dgrpFuzzConfigs)]
		n := cfg.N
		nodes := make([]*dgrp.Node, n)
		slow := make([][]dgrp.Slow, n)
		for _, b := range data[1:3] {
			i, j := int(b)%n, (int(b)%n+1+int(b>>4)%(n-1))%n
			slow[i] = append(slow[i], dgrp.Slow{Round: uint32(1 + int(b>>2)%cfg.Rounds), Peer: core.Rank(j)})
		}
		type env struct {
			from, to core.Rank
			m        core.Message
		}
		var flight []env
		step := func(p core.Rank, ev core.Event) {
			nd := nodes[p]
			before := nd.AppendBinary(nil)
			effs, err := nd.Step(ev, nil)
			if err != nil {
				if !bytes.Equal(nd.AppendBinary(nil), before) {
					t.Fatalf("%v: refused %v but changed", p, ev)
				}
				return
			}
			b := nd.AppendBinary(nil)
			if d, err := dgrp.DecodeNode(b, p, cfg); err != nil || !bytes.Equal(d.AppendBinary(nil), b) {
				t.Fatalf("%v does not round-trip: %v", nd, err)
			}
			for _, e := range effs {
				if e.Kind != core.EffSend {
					continue
				}
				mb := e.Msg.AppendBinary(nil)
				if m, err := dgrp.DecodeMessage(mb, n, cfg.Consensus); err != nil || !bytes.Equal(m.AppendBinary(nil), mb) {
					t.Fatalf("%v does not round-trip: %v", e.Msg, err)
				}
				flight = append(flight, env{p, e.To, e.Msg})
			}
		}
		for r := range nodes {
			nd, err := dgrp.New(core.Rank(r), cfg)
			if err != nil {
				t.Fatal(err)
			}
			nodes[r] = nd
			step(core.Rank(r), core.Call(dgrp.Start{Slow: slow[r]}))
		}
		evs := dgrpEvents(n)
		for i := 3; i+1 < len(data) && i < 600; i += 2 {
			p := core.Rank(int(data[i]) % n)
			var ev core.Event
			if k := int(data[i+1]); k < len(evs) {
				ev = evs[k]
			} else if len(flight) > 0 {
				j := (k - len(evs)) % len(flight)
				e := flight[j]
				flight = append(flight[:j:j], flight[j+1:]...)
				p, ev = e.to, core.Receive(e.from, e.m)
			} else {
				continue
			}
			step(p, ev)
		}
	})
}
