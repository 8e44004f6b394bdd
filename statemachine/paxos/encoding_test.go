package paxos

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// sampleMessages has one message of every kind, and variants that differ
// in one field each.
func sampleMessages() []core.Message {
	w, x := Command{Origin: 1, Data: "w"}, Command{Origin: 0, Data: ""}
	return []core.Message{
		Request{Cmd: w}, Request{Cmd: x},
		Prepare{B: 1, From: 0}, Prepare{B: 2, From: 0}, Prepare{B: 1, From: 1},
		Promise{B: 2, From: 0}, Promise{B: 2, From: 0, Votes: []Vote{{0, 1, w}}},
		Promise{B: 2, From: 0, Votes: []Vote{{0, 1, Noop}, {3, 2, x}}},
		Accept{B: 1, Inst: 0, V: w}, Accept{B: 1, Inst: 0, V: Noop}, Accept{B: 1, Inst: 1, V: w},
		Accepted{B: 1, Inst: 0, V: w}, Accepted{B: 3, Inst: 0, V: w},
		Nack{B: 1, Promised: 2}, Nack{B: 1, Promised: 4},
		Decided{From: 0}, Decided{From: 0, Values: []Command{w, Noop}}, Decided{From: 2, Values: []Command{w}},
		Learned{Next: 0}, Learned{Next: 5},
	}
}

// Every message decodes to itself, and distinct messages encode
// differently.
func TestMessageRoundTripAndDistinctness(t *testing.T) {
	seen := map[string]core.Message{}
	for _, m := range sampleMessages() {
		b := m.AppendBinary(nil)
		d, err := DecodeMessage(b, 3)
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		if d.String() != m.String() || !bytes.Equal(d.AppendBinary(nil), b) {
			t.Errorf("%v decodes to %v", m, d)
		}
		if o, ok := seen[string(b)]; ok {
			t.Errorf("%v and %v encode alike", m, o)
		}
		seen[string(b)] = m
	}
}

// Malformed messages are errors wrapping core.ErrMalformed: every strict
// prefix, trailing bytes, an unknown tag, an origin out of range, a
// no-op with data, votes out of order.
func TestMalformedMessages(t *testing.T) {
	var bad [][]byte
	for _, m := range sampleMessages() {
		b := m.AppendBinary(nil)
		for k := range len(b) {
			bad = append(bad, b[:k])
		}
		bad = append(bad, append(b, 0))
	}
	bad = append(bad, []byte{99},
		Request{Cmd: Command{Origin: 3, Data: "x"}}.AppendBinary(nil),
		append(Request{Cmd: Noop}.AppendBinary(nil), 1, 'x'),
		Promise{B: 2, Votes: []Vote{{3, 1, Noop}, {1, 1, Noop}}}.AppendBinary(nil),
		Promise{B: 2, From: 2, Votes: []Vote{{1, 1, Noop}}}.AppendBinary(nil),
		Promise{B: 2, Votes: []Vote{{1, 0, Noop}}}.AppendBinary(nil))
	for _, b := range bad {
		if m, err := DecodeMessage(b, 3); err == nil {
			t.Errorf("%x decoded to %v", b, m)
		} else if !errors.Is(err, core.ErrMalformed) {
			t.Errorf("%x: %v does not wrap ErrMalformed", b, err)
		}
	}
}

// Node states met on random schedules decode to themselves (world.step
// checks it after every step), and no strict prefix of a final state
// decodes.
func TestNodeRoundTrip(t *testing.T) {
	for i, cfg := range simConfigs() {
		w := newWorld(t, cfg, uint64(i))
		w.loss, w.crashes, w.recoveries = 2, 1, 1
		w.run(3, 200) // step checks every state's round trip
		if w.err != nil {
			t.Fatal(w.err)
		}
		for p, n := range w.nodes {
			b := n.AppendBinary(nil)
			for k := range len(b) {
				if _, err := DecodeNode(b[:k], core.Rank(p), w.cfg); err == nil {
					t.Fatalf("%v: prefix %d of %d decoded", n, k, len(b))
				}
			}
		}
	}
}

// Impossible events are errors and change nothing.
func TestImpossibleEventsAreErrors(t *testing.T) {
	cfg := Config{N: 4, Proposers: []core.Rank{0, 1}, Acceptors: []core.Rank{1, 2, 3}, Learners: []core.Rank{2}}
	n, err := New(1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Step(core.Call(Propose{Data: "x"}), nil); err != nil {
		t.Fatal(err)
	}
	before := n.AppendBinary(nil)
	type other struct{ core.Message }
	for _, ev := range []core.Event{
		core.Call(Propose{Data: "x"}),                  // pending already
		core.Call(nil),                                 // not an input
		core.Receive(4, Prepare{B: 1}),                 // rank out of range
		core.Receive(0, Prepare{B: 2}),                 // ballot 2 is p1's, not p0's
		core.Receive(0, Prepare{B: 0}),                 // ballot 0
		core.Receive(0, Promise{B: 1}),                 // … p0 is no acceptor
		core.Receive(3, Learned{Next: 1}),              // … p3, no learner, cannot send it
		core.Receive(2, Nack{B: 2, Promised: 2}),       // promised not above
		core.Receive(0, Request{Cmd: Noop}),            // no-op request
		core.Receive(0, Request{Cmd: Command{2, "y"}}), // p2 proposes nothing
		core.Receive(2, Accepted{B: 1, V: Command{3, "z"}}),
		core.Receive(0, Decided{Values: []Command{{Origin: 3}}}),
		core.Receive(0, other{}),
		core.Suspect(1), core.Suspect(7), core.Recovered(1),
		core.Timer(2),
		{},
	} {
		out := []core.Effect{core.Return(9, Noop)}
		effs, err := n.Step(ev, out)
		if err == nil {
			t.Errorf("%v: no error", ev)
		}
		if len(effs) != 1 || !bytes.Equal(n.AppendBinary(nil), before) {
			t.Errorf("%v changed the state or the effects", ev)
		}
	}
	learner, _ := New(2, cfg)
	for _, ev := range []core.Event{core.Call(Propose{}), core.Call(Lead{}), core.Receive(0, Request{Cmd: Command{0, "x"}})} {
		if _, err := learner.Step(ev, nil); err == nil {
			t.Errorf("%v at a learner-acceptor: no error", ev)
		}
	}
}

// Clone shares nothing mutable with the original.
func TestCloneIndependence(t *testing.T) {
	w := newWorld(t, Classic(3), 1)
	w.run(3, 100)
	for _, n := range w.nodes {
		before := n.AppendBinary(nil)
		c := n.clone()
		for _, ev := range []core.Event{
			core.Call(Propose{Data: "new"}), core.Call(Lead{}), core.Suspect((n.self + 1) % 3),
			core.Receive((n.self+1)%3, Accepted{B: 9, Inst: 7, V: Noop}),
		} {
			if _, err := c.Step(ev, nil); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(n.AppendBinary(nil), before) {
			t.Fatalf("stepping the clone changed %v", n)
		}
	}
}

// Configs with no role, ranks out of order or range, or an unknown mutant
// are refused.
func TestConfigValidation(t *testing.T) {
	r := func(rs ...core.Rank) []core.Rank { return rs }
	for _, c := range []Config{
		{N: 0, Proposers: r(0), Acceptors: r(0), Learners: r(0)},
		{N: 3, Acceptors: r(0), Learners: r(0)},
		{N: 3, Proposers: r(1, 0), Acceptors: r(0), Learners: r(0)},
		{N: 3, Proposers: r(0), Acceptors: r(0, 3), Learners: r(0)},
		{N: 3, Proposers: r(0), Acceptors: r(0), Learners: r(0), Mutant: "nope"},
	} {
		if _, err := New(0, c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
