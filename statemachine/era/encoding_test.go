package era

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// reachedStates runs random executions and returns every node state and
// message seen.
func reachedStates(cfg Config, runs int) ([]*Node, []core.Message) {
	var nodes []*Node
	var msgs []core.Message
	for seed := range runs {
		r := rand.New(rand.NewPCG(uint64(seed), 9))
		s := newSim(cfg)
		for p := range cfg.N {
			var v Value = Flag(r.Uint64N(1 << 20))
			if cfg.Op == ULFM {
				v = randomContribution(r)
				if v == nil {
					v = NewContribution(0, core.RankSet{}, core.RankSet{})
				}
			}
			s.call(core.Rank(p), uint64(r.IntN(3)), v)
		}
		for _, n := range s.nodes {
			nodes = append(nodes, n.clone())
		}
		_ = s.runRandom(r, cfg.N-1)
		for _, n := range s.nodes {
			nodes = append(nodes, n.clone())
		}
		for _, line := range s.queue {
			msgs = append(msgs, line.m)
		}
	}
	for _, m := range []core.Message{Up{7, Flag(3)}, Down{1 << 40, Flag(0)}, ResultRequest{2}} {
		if cfg.Op != ULFM {
			msgs = append(msgs, m)
		}
	}
	return nodes, msgs
}

// TestEncodingRoundTrip decodes every state and message reached and checks
// that re-encoding gives the same bytes.
func TestEncodingRoundTrip(t *testing.T) {
	for _, cfg := range []Config{{N: 5}, {N: 6, Op: ULFM, GC: true}, {N: 4, Topology: Star, GC: true}} {
		nodes, msgs := reachedStates(cfg, 100)
		if len(nodes) == 0 {
			t.Fatal("no states")
		}
		for _, n := range nodes {
			b := n.AppendBinary(nil)
			d, err := DecodeNode(b, n.Rank(), cfg)
			if err != nil {
				t.Fatalf("DecodeNode(%v): %v", n, err)
			}
			if !bytes.Equal(d.AppendBinary(nil), b) || d.String() != n.String() {
				t.Fatalf("round trip changed %v into %v", n, d)
			}
		}
		for _, m := range msgs {
			b := m.AppendBinary(nil)
			d, err := DecodeMessage(b, cfg.Op)
			if err != nil {
				t.Fatalf("DecodeMessage(%v): %v", m, err)
			}
			if d.String() != m.String() || d.Kind() != m.Kind() {
				t.Fatalf("round trip changed %v into %v", m, d)
			}
		}
	}
}

// TestDecodeRejectsGarbage feeds random bytes, truncations and one-byte
// corruptions of valid encodings: every result is either an error wrapping
// core.ErrMalformed or a value that re-encodes to the same bytes; nothing
// panics.
func TestDecodeRejectsGarbage(t *testing.T) {
	cfg := Config{N: 6, Op: ULFM}
	nodes, msgs := reachedStates(cfg, 30)
	var inputs [][]byte
	for _, n := range nodes {
		inputs = append(inputs, n.AppendBinary(nil))
	}
	for _, m := range msgs {
		inputs = append(inputs, m.AppendBinary(nil))
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var b []byte
		if r.IntN(2) == 0 {
			b = make([]byte, r.IntN(24))
			for i := range b {
				b[i] = byte(r.Uint32())
			}
		} else {
			b = bytes.Clone(inputs[r.IntN(len(inputs))])
			if len(b) > 0 && r.IntN(2) == 0 {
				b = b[:r.IntN(len(b))]
			} else if len(b) > 0 {
				b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
			}
		}
		if n, err := DecodeNode(b, 2, cfg); err != nil {
			if !errors.Is(err, core.ErrMalformed) {
				t.Fatalf("DecodeNode(%x): %v does not wrap ErrMalformed", b, err)
			}
		} else if !bytes.Equal(n.AppendBinary(nil), b) {
			t.Fatalf("DecodeNode(%x) accepted a non-canonical encoding", b)
		}
		if m, err := DecodeMessage(b, cfg.Op); err != nil {
			if !errors.Is(err, core.ErrMalformed) {
				t.Fatalf("DecodeMessage(%x): %v does not wrap ErrMalformed", b, err)
			}
		} else if !bytes.Equal(m.AppendBinary(nil), b) {
			t.Fatalf("DecodeMessage(%x) accepted a non-canonical encoding", b)
		}
	}
}

// TestDecodeRejectsNonCanonical: an overlong varint, agreements out of
// order, a record at its defaults, self marked dead, UP without a value.
func TestDecodeRejectsNonCanonical(t *testing.T) {
	cfg := Config{N: 4}
	bad := map[string][]byte{
		"overlong a":          {tagResultRequest, 0x80, 0x00},
		"UP without value":    {tagUp, 0, 0},
		"unknown tag":         {9, 0},
		"trailing byte":       {tagResultRequest, 0, 0},
		"value of wrong kind": {tagDown, 0, 2, 1},
	}
	for name, b := range bad {
		if _, err := DecodeMessage(b, And); !errors.Is(err, core.ErrMalformed) {
			t.Errorf("%s: DecodeMessage(%x) = %v, want ErrMalformed", name, b, err)
		}
	}
	rec := func(a byte) []byte { return []byte{a, byte(Gathering), 1, 5, 0, 1, 5, 1, 1, 0} }
	nodes := map[string][]byte{
		"self dead":        {1, 1, 0},
		"out of order":     append(append([]byte{0, 2}, rec(3)...), rec(1)...),
		"duplicate a":      append(append([]byte{0, 2}, rec(1)...), rec(1)...),
		"default record":   {0, 1, 4, 0, 0, 0, 0, 0, 0},
		"bad status":       {0, 1, 4, 3, 0, 0, 0, 0, 0},
		"rank out of N":    {1, 4, 0},
		"count past bytes": {0, 9},
	}
	for name, b := range nodes {
		if _, err := DecodeNode(b, 1, cfg); !errors.Is(err, core.ErrMalformed) {
			t.Errorf("%s: DecodeNode(%x) = %v, want ErrMalformed", name, b, err)
		}
	}
	good := append(append([]byte{0, 2}, rec(1)...), rec(3)...)
	if _, err := DecodeNode(good, 1, cfg); err != nil {
		t.Errorf("DecodeNode(%x): %v", good, err)
	}
}
