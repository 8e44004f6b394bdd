package abcast_test

import (
	"bytes"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/abcast"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// TestCodecRoundTrip: over every reachable world of a small model of each
// variant, every member's state and every message in flight decode back to
// the same encoding (the checker keeps its frontier as encodings), and the
// world decodes to its own encoding.
func TestCodecRoundTrip(t *testing.T) {
	for _, p := range []abcast.Params{
		{Variant: ab.UB, Core: 3, Messages: 1, Crashes: 1},
		{Variant: ab.BB, Core: 3, Messages: 1, Crashes: 1},
		{Variant: ab.ConsensusBased, Core: 2, Messages: 2, K: 2},
		{Variant: ab.ConsensusBased, Core: 3, Messages: 1, K: 3, Crashes: 1, Oracle: true, Detector: env.DetectorLocal, ForgetCrashed: true},
	} {
		m, err := abcast.NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		cfg := p.Config()
		n := modeltest.EachTransition(t, m, 100_000, func(_ *env.World, _ checker.Action, w *env.World) {
			for r := range core.Rank(w.N()) {
				enc := w.Node(r).AppendBinary(nil)
				back, err := ab.DecodeNode(enc, r, cfg)
				if err != nil || !bytes.Equal(back.AppendBinary(nil), enc) {
					t.Fatalf("%v: %v node %v does not round-trip: %v", p.Variant, r, w.Node(r), err)
				}
			}
			for _, e := range w.InFlight() {
				enc := e.Msg.AppendBinary(nil)
				back, err := ab.DecodeAny(enc, cfg)
				if err != nil || !bytes.Equal(back.AppendBinary(nil), enc) {
					t.Fatalf("%v: message %v does not round-trip: %v", p.Variant, e.Msg, err)
				}
			}
			wb := m.Encode(nil, w)
			back, err := m.Decode(wb)
			if err != nil || !bytes.Equal(m.Encode(nil, back), wb) {
				t.Fatalf("%v: world does not round-trip: %v", p.Variant, err)
			}
		})
		t.Logf("%v: %d worlds", p.Variant, n)
	}
}

// TestDecodeRefusesGarbage: truncated encodings are refused with an error,
// never a panic.
func TestDecodeRefusesGarbage(t *testing.T) {
	p := abcast.Params{Variant: ab.ConsensusBased, Core: 3, Messages: 2, K: 2}
	cfg := p.Config()
	for _, m := range []core.Message{ab.Msg{ID: ab.ID{Origin: 2, Seq: 1}, Num: ab.NoNum}, ab.Decision{Inst: 3, Batch: []ab.ID{{Origin: 1}, {Origin: 2, Seq: 1}}}} {
		enc := m.AppendBinary(nil)
		for i := range len(enc) {
			if _, err := ab.DecodeAny(enc[:i], cfg); err == nil {
				t.Errorf("%v cut at %d decoded", m, i)
			}
		}
	}
}
