package correction

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

func testConfig(t *testing.T, c CorrectionKind, s StartMode) *Config {
	t.Helper()
	top, err := NewTopology(Tree{Kind: BinomialInterleaved}, 8)
	if err != nil {
		t.Fatal(err)
	}
	return &Config{Topology: top, Correction: c, Distance: 2, Start: s, Delay: 3}
}

func enc(m core.Machine) []byte { return m.AppendBinary(nil) }

// §2.1: the root delivers once and sends tree messages to its children in
// send order; a second call is impossible and leaves the state unchanged.
func TestSection21RootBroadcastAndErrors(t *testing.T) {
	cfg := testConfig(t, Checked, Synchronized)
	n, _ := New(cfg, 0)
	out, err := n.Step(core.Call(Broadcast{Value: 7}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 4 || out[0].Kind != core.EffDeliver || out[1].To != 1 || out[2].To != 2 || out[3].To != 4 {
		t.Fatalf("effects %v", out)
	}
	before := enc(n)
	for _, ev := range []core.Event{
		core.Call(Broadcast{Value: 7}),
		core.Receive(0, NewTreeMsg(1)),
		core.Receive(9, NewTreeMsg(1)),
		core.Receive(1, nil),
		core.Timer(TimerSendSlot),
		core.Timer(99),
		core.Suspect(3),
	} {
		out, err := n.Step(ev, nil)
		if err == nil || len(out) != 0 || !bytes.Equal(before, enc(n)) {
			t.Fatalf("%v: err=%v out=%v, state changed=%t", ev, err, out, !bytes.Equal(before, enc(n)))
		}
	}
	m, _ := New(cfg, 3)
	if _, err := m.Step(core.Call(Broadcast{Value: 7}), nil); err == nil {
		t.Fatal("non-root broadcast accepted")
	}
}

// §2.1 no duplicates: a process delivers exactly once, whatever it receives.
func TestSection21DeliverExactlyOnce(t *testing.T) {
	for _, c := range []CorrectionKind{NoCorrection, Opportunistic, OptimizedOpportunistic, Checked, Delayed} {
		for _, s := range []StartMode{Synchronized, Overlapped} {
			n, _ := New(testConfig(t, c, s), 5)
			delivered := 0
			rng := rand.New(rand.NewPCG(1, 2))
			armed := false
			for i := 0; i < 200; i++ {
				var ev core.Event
				switch rng.IntN(4) {
				case 0:
					ev = core.Receive(core.Rank(rng.IntN(5)), NewTreeMsg(3))
				case 1:
					ev = core.Receive(core.Rank(rng.IntN(5)), NewCorrectionMsg(3, Dir(1+rng.IntN(2))))
				case 2:
					ev = core.Timer(TimerStart)
				case 3:
					if !armed {
						continue
					}
					ev = core.Timer(TimerSendSlot)
				}
				out, err := n.Step(ev, nil)
				if err != nil {
					t.Fatalf("%v %v: %v: %v", c, s, ev, err)
				}
				armed = n.flags&fSlotArmed != 0
				for _, e := range out {
					if e.Kind == core.EffDeliver {
						delivered++
					}
				}
			}
			if delivered != 1 {
				t.Fatalf("%v %v: delivered %d times", c, s, delivered)
			}
		}
	}
}

// Canonical encoding: states and messages round-trip; decoders reject
// malformed bytes with core.ErrMalformed and never panic.
func TestEncodingRoundTripAndMalformed(t *testing.T) {
	cfg := testConfig(t, Checked, Synchronized)
	n, _ := New(cfg, 0)
	n.Step(core.Call(Broadcast{Value: 300}), nil)
	n.Step(core.Timer(TimerStart), nil)
	n.Step(core.Receive(1, NewCorrectionMsg(300, Left)), nil)
	for _, m := range []core.Machine{n, n.Clone()} {
		b := enc(m)
		d, err := DecodeNode(b, m.(*Node).Rank(), cfg)
		if err != nil || !bytes.Equal(enc(d), b) {
			t.Fatalf("node round trip: %v", err)
		}
	}
	for _, m := range []*Msg{NewTreeMsg(5), NewCorrectionMsg(1<<40, Left), NewCorrectionMsg(0, Right)} {
		b := m.AppendBinary(nil)
		d, err := DecodeMessage(b)
		if err != nil || !bytes.Equal(d.AppendBinary(nil), b) || d.String() != m.String() {
			t.Fatalf("message round trip %v: %v", m, err)
		}
	}
	for _, b := range [][]byte{nil, {9}, {2, 3, 1}, {1}, {1, 0x80}, {1, 1, 1}} {
		if _, err := DecodeMessage(b); !errors.Is(err, core.ErrMalformed) {
			t.Fatalf("DecodeMessage(%v) = %v", b, err)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	good := enc(n)
	for i := 0; i < 20000; i++ {
		b := append([]byte(nil), good...)
		b[rng.IntN(len(b))] = byte(rng.IntN(256))
		b = b[:rng.IntN(len(b)+1)]
		if d, err := DecodeNode(b, 0, cfg); err == nil && !bytes.Equal(enc(d), b) {
			t.Fatalf("accepted non-canonical %v", b)
		}
		if d, err := DecodeMessage(b); err == nil && !bytes.Equal(d.AppendBinary(nil), b) {
			t.Fatalf("accepted non-canonical message %v", b)
		}
	}
}

// flogsim's rules are options of the variants they belong to: the cover
// stop of checked correction, the cut ring of checked and opportunistic
// correction; elsewhere Validate refuses them.
func TestFlogsimOptionsValidate(t *testing.T) {
	top, err := NewTopology(Tree{Kind: BinomialInterleaved}, 8)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []CorrectionKind{NoCorrection, Opportunistic, OptimizedOpportunistic, Checked, Delayed} {
		for _, cover := range []bool{false, true} {
			for _, cut := range []bool{false, true} {
				cfg := &Config{Topology: top, Correction: c, Distance: 2, Delay: 3, CoverStop: cover, NoOverRoot: cut}
				want := (!cover || c == Checked) && (!cut || c == Checked || c == Opportunistic || c == OptimizedOpportunistic)
				if err := cfg.Validate(); (err == nil) != want {
					t.Errorf("%v cover=%t no-over-root=%t: Validate() = %v, want ok=%t", c, cover, cut, err, want)
				}
			}
		}
	}
}
