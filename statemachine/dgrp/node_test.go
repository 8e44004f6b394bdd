package dgrp

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// stub is a consensus that never decides: enough for the node's own rules.
type stub struct{}

type stubNode struct{}

func (stubNode) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) { return out, nil }
func (stubNode) Clone() core.Machine                                          { return stubNode{} }
func (stubNode) AppendBinary(b []byte) []byte                                 { return b }
func (stubNode) String() string                                               { return "stub" }

type stubInput struct{}

func (stubInput) AppendBinary(b []byte) []byte { return b }
func (stubInput) String() string               { return "propose" }

func (stub) New(int, core.Rank) (core.Machine, error)                { return stubNode{}, nil }
func (stub) Propose(string) core.Input                               { return stubInput{} }
func (stub) Decided(core.Value) (string, bool)                       { return "", false }
func (stub) Log(core.Machine) []string                               { return nil }
func (stub) Timer() uint64                                           { return 1 }
func (stub) DecodeNode(int, core.Rank, []byte) (core.Machine, error) { return stubNode{}, nil }
func (stub) DecodeMessage(int, []byte) (core.Message, error)         { return nil, errors.New("stub") }

func newNode(t *testing.T, r core.Rank) *Node {
	t.Helper()
	n, err := New(r, Config{N: 3, Zeta: 1, Rounds: 2, Consensus: stub{}})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFailedTestRemovesAndBroadcasts: §4.1.2, a tester's failed test makes
// the tested process's counter odd and goes out in its EVENTS at the end
// of the round.
func TestFailedTestRemovesAndBroadcasts(t *testing.T) {
	n := newNode(t, 0)
	if _, err := n.Step(core.Call(Start{Slow: []Slow{{Round: 1, Peer: 2}}}), nil); err != nil {
		t.Fatal(err)
	}
	out, err := n.Step(core.Timer(TimerTick), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n.Recommended(2) || !n.Recommended(1) {
		t.Fatalf("view %v after failing p2's test", n.View())
	}
	sent := 0
	for _, e := range out {
		if m, ok := e.Msg.(Events); ok && e.Kind == core.EffSend {
			sent++
			if m.R != 1 || len(m.List) != 1 || m.List[0] != (Event{K: 2, C: 1}) {
				t.Fatalf("EVENTS %v", m)
			}
		}
	}
	if sent != 2 {
		t.Fatalf("%d EVENTS sent, want one to each other process", sent)
	}
}

// TestMaxMerge: a counter received lower than the one held changes nothing
// (§4.1.1: the entry is updated only if the received one is greater).
func TestMaxMerge(t *testing.T) {
	n := newNode(t, 0)
	n.Step(core.Call(Start{}), nil)
	n.Step(core.Receive(1, Events{R: 1, List: []Event{{K: 2, C: 3}}, Syndrome: []uint32{0, 0, 3}}), nil)
	n.Step(core.Receive(1, Events{R: 1, List: []Event{{K: 2, C: 1}}, Syndrome: []uint32{0, 0, 1}}), nil)
	if got := n.Syndrome()[2]; got != 3 {
		t.Fatalf("counter %d, want the maximum 3", got)
	}
}

// TestCloneAndEncoding: a clone is independent, and equal states encode
// equally; bad events give errors.
func TestCloneAndEncoding(t *testing.T) {
	n := newNode(t, 0)
	n.Step(core.Call(Start{Slow: []Slow{{Round: 1, Peer: 1}}}), nil)
	c := n.Clone().(*Node)
	if !bytes.Equal(n.AppendBinary(nil), c.AppendBinary(nil)) {
		t.Fatal("a clone encodes differently")
	}
	n.Step(core.Timer(TimerTick), nil)
	if bytes.Equal(n.AppendBinary(nil), c.AppendBinary(nil)) || !c.Recommended(1) {
		t.Fatal("stepping the original changed the clone")
	}
	for _, ev := range []core.Event{
		core.Call(Start{}),                   // started twice
		core.Timer(9),                        // unknown timer
		core.Receive(0, Ack{R: 1}),           // from itself
		core.Receive(5, Ack{R: 1}),           // rank out of range
		core.Receive(1, Readmit{K: 7, C: 1}), // rank out of range
		core.Receive(1, Events{R: 1, List: []Event{{K: 9, C: 1}}}),
	} {
		before := n.AppendBinary(nil)
		if _, err := n.Step(ev, nil); err == nil {
			t.Errorf("%v: no error", ev)
		}
		if !bytes.Equal(before, n.AppendBinary(nil)) {
			t.Errorf("%v: the refused event changed the state", ev)
		}
	}
	for _, m := range []core.Message{Events{R: 2, List: []Event{{K: 1, C: 3}}, Syndrome: []uint32{0, 3, 0}}, Ack{R: 4}, Readmit{K: 2, C: 5}, Decide{K: 1, C: 1}} {
		got, err := DecodeMessage(m.AppendBinary(nil), 3, stub{})
		if err != nil || got.String() != m.String() {
			t.Errorf("%v: decoded %v, %v", m, got, err)
		}
	}
}
