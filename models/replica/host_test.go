package replica

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// stackSmall is ping-pong 2×2 (3 hosts) on DBRR with one crash: small, and
// it reaches crashes, declarations, take-overs and the ping phase.
func stackSmall(t testing.TB) *Model {
	t.Helper()
	m, err := NewStackModel(Params{Program: "ping-pong", Procs: 2, Degree: 2, Crashes: 1},
		StackParams{Variant: fd.DBRR, Ping: true, TGossip: 4, PingTimeout: 3, MaxRounds: 10, Delta: 1})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// reachedHosts runs seeded random walks of m (walks of up to 400 steps)
// and returns every distinct host state reached, by encoding.
func reachedHosts(t testing.TB, m *env.Model, walks int) map[string]*Host {
	t.Helper()
	hosts := map[string]*Host{}
	rng := rand.New(rand.NewPCG(uint64(walks), 13))
	for range walks {
		w := m.Init()[0]
		for range 400 {
			for r := range w.N() {
				h := w.Node(core.Rank(r)).(*Host)
				hosts[string(h.AppendBinary(nil))] = h
			}
			as := m.Actions(w, nil)
			if len(as) == 0 {
				break
			}
			next, err := m.Apply(w, as[rng.IntN(len(as))])
			if err != nil {
				t.Fatal(err)
			}
			w = next
		}
	}
	return hosts
}

// TestHostRoundTrip: DecodeHost inverts AppendBinary on every host state of
// a BFS prefix of the stack, field by field (both parts compared with the
// parts' own encodings, which their packages prove complete), and distinct
// states have distinct encodings.
func TestHostRoundTrip(t *testing.T) {
	m := stackSmall(t)
	hosts := reachedHosts(t, m.Model, 200)
	if len(hosts) < 50 {
		t.Fatalf("only %d host states reached", len(hosts))
	}
	dc := hosts[string(firstKey(hosts))].det.Config()
	declared := 0
	for b, h := range hosts {
		got, err := DecodeHost([]byte(b), h.rep.Rank(), m.Config, dc)
		if err != nil {
			t.Fatalf("%v: %v", h, err)
		}
		if !bytes.Equal(got.rep.AppendBinary(nil), h.rep.AppendBinary(nil)) || !bytes.Equal(got.det.AppendBinary(nil), h.det.AppendBinary(nil)) {
			t.Fatalf("round trip of %v gave %v", h, got)
		}
		if got.String() != h.String() {
			t.Fatalf("round trip changed the summary: %v vs %v", h, got)
		}
		if !h.det.Declared().Empty() {
			declared++
		}
	}
	if declared == 0 {
		t.Fatalf("no host state with a declaration among %d: the prefix is too short to test the routing", len(hosts))
	}
	t.Logf("%d host states, %d with a declaration", len(hosts), declared)
}

func firstKey(m map[string]*Host) string {
	for k := range m {
		return k
	}
	return ""
}

// TestHostEncodingBoundary: moving bytes between the two length-prefixed
// parts changes the encoding (no two host states share bytes because a
// part's encoding ends where the other's begins).
func TestHostEncodingBoundary(t *testing.T) {
	m := stackSmall(t)
	hosts := reachedHosts(t, m.Model, 50)
	byParts := map[[2]string]string{}
	for b, h := range hosts {
		k := [2]string{string(h.rep.AppendBinary(nil)), string(h.det.AppendBinary(nil))}
		if prev, ok := byParts[k]; ok && prev != b {
			t.Fatalf("one pair of parts, two encodings")
		}
		byParts[k] = b
	}
	if len(byParts) != len(hosts) {
		t.Fatalf("%d encodings for %d pairs of parts", len(hosts), len(byParts))
	}
}

// TestHostCloneIsDeep: stepping a clone leaves the original's encoding.
func TestHostCloneIsDeep(t *testing.T) {
	m := stackSmall(t)
	w := m.Init()[0]
	h := w.Node(0).(*Host)
	before := h.AppendBinary(nil)
	c := h.Clone().(*Host)
	if _, err := c.Step(core.Call(fd.Start{}), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Step(core.Timer(2*fd.TimerGossip), nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, h.AppendBinary(nil)) {
		t.Fatal("stepping the clone changed the original")
	}
	if bytes.Equal(before, c.AppendBinary(nil)) {
		t.Fatal("two steps changed nothing")
	}
}

// TestHostRouting: detector timers are even, replica timers odd, messages
// carry their layer, and a declaration reaches the replica in the same
// step.
func TestHostRouting(t *testing.T) {
	m := stackSmall(t)
	h := m.Init()[0].Node(1).(*Host).Clone().(*Host) // p1 = P1^0, master of P1
	effs, err := h.Step(core.Call(fd.Start{}), nil)
	if err != nil || len(effs) != 1 || effs[0].Kind != core.EffSetTimer || effs[0].Timer != 2*fd.TimerGossip {
		t.Fatalf("detector start: %v %v", effs, err)
	}
	effs, err = h.Step(core.Call(sm.Start{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	// P1 of ping-pong receives first: no effect yet.
	if len(effs) != 0 {
		t.Fatalf("replica start: %v", effs)
	}
	// The gossip round sends a GOSSIP wrapped in LayerFD and re-arms timer 0.
	effs, err = h.Step(core.Timer(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	sawGossip := false
	for _, e := range effs {
		if e.Kind == core.EffSend {
			w, ok := e.Msg.(Wire)
			if !ok || w.Layer != LayerFD || w.Kind() != "GOSSIP" {
				t.Fatalf("gossip sent as %v", e.Msg)
			}
			sawGossip = true
		}
		if e.Kind == core.EffSetTimer && e.Timer%2 != 0 {
			t.Fatalf("detector timer %d is odd", e.Timer)
		}
	}
	if !sawGossip {
		t.Fatalf("no gossip in %v", effs)
	}
	// A DATA from P0 reaches the replica: it delivers and its reply is a
	// LayerApp DATA.
	data := sm.Data{MID: sm.MID{Src: 0, Dst: 1}, Payload: 1}
	effs, err = h.Step(core.Receive(0, Wire{Layer: LayerApp, Msg: data}), nil)
	if err != nil {
		t.Fatal(err)
	}
	var app, deliver bool
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			app = e.Msg.(Wire).Layer == LayerApp && e.Msg.Kind() == "DATA"
		case core.EffDeliver:
			deliver = true
		case core.EffSetTimer:
			if e.Timer != 2*sm.PumpTimer+1 {
				t.Fatalf("replica timer %d, want %d", e.Timer, 2*sm.PumpTimer+1)
			}
		}
	}
	if !app || !deliver {
		t.Fatalf("DATA from P0 gave %v", effs)
	}
	// Without gossip from p0 and p2 for more than T_cleanup rounds, the
	// detector declares them (no ping answers arrive here) and the replica
	// learns it in the same step: its view then holds them.
	for i := 0; i < 20 && h.det.Declared().Len() < 2; i++ {
		effs, err = h.Step(core.Timer(0), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range effs {
			if e.Kind == core.EffSetTimer && e.Timer%2 == 0 && e.Timer != 0 {
				if _, err := h.Step(core.Timer(e.Timer), nil); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if h.det.Declared().Len() != 2 || !h.rep.IsMaster() {
		t.Fatalf("after the rounds: %v", h)
	}
	if !bytes.Contains([]byte(h.rep.String()), []byte("dead={p0,p2}")) {
		t.Fatalf("the replica's view does not hold the declarations: %v", h.rep)
	}
}

// TestHostRejects: impossible events give errors and leave the host as it
// was; malformed bytes give core.ErrMalformed, never a panic.
func TestHostRejects(t *testing.T) {
	m := stackSmall(t)
	h := m.Init()[0].Node(0).(*Host).Clone().(*Host)
	before := h.AppendBinary(nil)
	for _, ev := range []core.Event{
		core.Suspect(1),
		core.Receive(1, sm.Data{}),                             // not a Wire
		core.Receive(1, Wire{Layer: 9, Msg: fd.Ping{}}),        // unknown layer
		core.Receive(1, Wire{Layer: LayerApp, Msg: fd.Ping{}}), // wrong layer for the message
		core.Timer(0), core.Timer(3),                           // before Start, not armed
		core.Call(nil),
		{Kind: 99},
	} {
		if _, err := h.Step(ev, nil); err == nil {
			t.Errorf("%v accepted", ev)
		}
		if !bytes.Equal(before, h.AppendBinary(nil)) {
			t.Fatalf("%v changed the host", ev)
		}
	}
	dc := &fd.Config{N: 3, Variant: fd.DBRR, TGossip: 4, Cleanup: 6}
	good := h.AppendBinary(nil)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		b := append([]byte(nil), good...)
		switch i % 3 {
		case 0:
			b = b[:rng.IntN(len(b))]
		case 1:
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
		case 2:
			b = append(b, byte(rng.IntN(256)))
		}
		if _, err := DecodeHost(b, 0, m.Config, dc); err != nil && !errors.Is(err, core.ErrMalformed) {
			t.Fatalf("%x: %v does not wrap core.ErrMalformed", b, err)
		}
	}
	for _, b := range [][]byte{nil, {0}, {9, 1}, {byte(LayerFD), 7}, {byte(LayerApp)}} {
		if _, err := DecodeWire(b, 2, 3); !errors.Is(err, core.ErrMalformed) {
			t.Errorf("DecodeWire(%x): %v", b, err)
		}
	}
	for _, b := range [][]byte{nil, {0x80}, {0, 5, 0, 0, 0, 0}, {1, 2}} {
		if _, err := DecodeValue(b, 2); !errors.Is(err, core.ErrMalformed) {
			t.Errorf("DecodeValue(%x): %v", b, err)
		}
	}
	for _, v := range []core.Value{sm.Output{V: -5}, sm.Delivery{MID: sm.MID{Src: 1, Dst: 0, Tag: 3, Tick: 9}, Payload: 4}} {
		got, err := DecodeValue(v.AppendBinary(nil), 2)
		if err != nil || got != v {
			t.Errorf("DecodeValue(%v) = %v, %v", v, got, err)
		}
	}
	for _, w := range []Wire{{LayerFD, fd.Gossip{Table: []uint64{1, 2, 3}}}, {LayerFD, fd.Pong{HB: 4}}, {LayerApp, sm.Commit{MID: sm.MID{Src: 1, Dst: 1}}}} {
		got, err := DecodeWire(w.AppendBinary(nil), 2, 3)
		if err != nil || !bytes.Equal(got.AppendBinary(nil), w.AppendBinary(nil)) {
			t.Errorf("DecodeWire(%v) = %v, %v", w, got, err)
		}
	}
}
