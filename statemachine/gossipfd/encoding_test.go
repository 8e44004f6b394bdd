package gossipfd

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/core"
)

// nodeCmp compares nodes field by field (sets by membership).
var nodeCmp = cmp.Options{
	cmp.AllowUnexported(Node{}),
	cmp.Comparer(func(a, b core.RankSet) bool { return a.Equal(b) }),
	cmp.Comparer(func(a, b *Config) bool { return a == b }), // shared, immutable
}

// reachedStates runs several configurations with crashes and collects every
// node state after every round.
func reachedStates(t *testing.T) []*Node {
	t.Helper()
	var out []*Node
	plan, err := NewPlan(5, 3, func(s core.Rank, i int) core.Rank { return (s + 1 + core.Rank(i)) % 5 })
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []*Config{
		{N: 4, Variant: BRR, TGossip: 4, Cleanup: 2},
		{N: 4, Variant: BRR, TGossip: 4, Cleanup: 2, Ping: true, PingTimeout: 3},
		{N: 5, Variant: DBRR, TGossip: 4, Cleanup: 3, Ping: true, PingTimeout: 3, OnPong: PongWithdrawOnly},
		{N: 5, Variant: RR, TGossip: 2, Cleanup: 1, Routing: RouteLive},
		{N: 5, Variant: Random, TGossip: 2, Cleanup: 2, Plan: plan},
		{N: 6, Variant: DBRR, TGossip: 3, Cleanup: 2, Offsets: []int{0, 1, 2, 3, 4, 5}, Ping: true, PingTimeout: 1},
	} {
		w := newWorld(t, cfg)
		for g := range 14 {
			if g == 3 {
				w.dead[0], w.dead[1] = true, true
			}
			w.round()
			for _, n := range w.nodes {
				out = append(out, n.clone())
			}
		}
	}
	return out
}

// TestNodeRoundTrip: DecodeNode inverts AppendBinary on every reached state.
func TestNodeRoundTrip(t *testing.T) {
	states := reachedStates(t)
	for _, n := range states {
		b := n.AppendBinary(nil)
		got, err := DecodeNode(b, n.self, n.cfg)
		if err != nil {
			t.Fatalf("%v: %v", n, err)
		}
		if d := cmp.Diff(n, got, nodeCmp); d != "" {
			t.Fatalf("round trip of %v (-want +got):\n%s", n, d)
		}
	}
	if len(states) < 100 {
		t.Fatalf("only %d states reached", len(states))
	}
}

// TestNodeEncodingDistinct: two states of the same host and config encode
// equally only if they are equal, over the reached states and over every
// single-field change of them.
func TestNodeEncodingDistinct(t *testing.T) {
	type key struct {
		cfg  *Config
		self core.Rank
		enc  string
	}
	seen := map[key]*Node{}
	add := func(n *Node) {
		k := key{n.cfg, n.self, string(n.AppendBinary(nil))}
		if m, ok := seen[k]; ok && !cmp.Equal(m, n, nodeCmp) {
			t.Fatalf("%v and %v encode equally", m, n)
		}
		seen[k] = n
	}
	for _, n := range reachedStates(t) {
		add(n)
		other := (n.self + 1) % core.Rank(n.cfg.N)
		for _, change := range []func(m *Node){
			func(m *Node) { m.started = !m.started },
			func(m *Node) { m.g++ },
			func(m *Node) { m.hb[other]++ },
			func(m *Node) { m.lastInc[other]++ },
			func(m *Node) { m.suspected.Add(other) },
			func(m *Node) { m.declared.Add(other) },
		} {
			m := n.clone()
			change(m)
			if string(m.AppendBinary(nil)) == string(n.AppendBinary(nil)) && !cmp.Equal(m, n, nodeCmp) {
				t.Fatalf("a field change of %v is not in the encoding", n)
			}
			add(m)
		}
	}
}

// TestCloneIsDeep: stepping a clone leaves the original unchanged.
func TestCloneIsDeep(t *testing.T) {
	for _, n := range reachedStates(t)[:60] {
		before := n.AppendBinary(nil)
		c := n.Clone().(*Node)
		c.hb[0]++
		c.lastInc[0]++
		c.suspected.Add(1)
		c.declared.Add(2)
		if string(n.AppendBinary(nil)) != string(before) {
			t.Fatalf("changing a clone changed %v", n)
		}
	}
}

// TestDecodeNodeRejects: truncations, trailing bytes, overlong varints and
// impossible states give core.ErrMalformed.
func TestDecodeNodeRejects(t *testing.T) {
	states := reachedStates(t)
	for _, n := range states[len(states)-40:] {
		b := n.AppendBinary(nil)
		for k := range len(b) {
			if _, err := DecodeNode(b[:k], n.self, n.cfg); !errors.Is(err, core.ErrMalformed) {
				t.Fatalf("prefix %d of %d bytes of %v: err %v", k, len(b), n, err)
			}
		}
		if _, err := DecodeNode(append(b[:len(b):len(b)], 0), n.self, n.cfg); !errors.Is(err, core.ErrMalformed) {
			t.Fatalf("trailing byte accepted: %v", err)
		}
	}
	cfg := &Config{N: 3, Variant: BRR, TGossip: 2, Cleanup: 2}
	n, _ := New(0, cfg)
	w := newWorld(t, cfg)
	w.rounds(2)
	for name, bad := range map[string]func(m *Node){
		"own entry":           func(m *Node) { m.hb[m.self]++ },
		"lastInc after g":     func(m *Node) { m.lastInc[1] = m.g + 1 },
		"suspects itself":     func(m *Node) { m.declared.Add(m.self) },
		"suspicion, no ping":  func(m *Node) { m.suspected.Add(1) },
		"suspected+declared":  func(m *Node) { m.suspected.Add(1); m.declared.Add(1) },
		"rounds, not started": func(m *Node) { m.started = false },
	} {
		m := w.nodes[0].clone()
		bad(m)
		if _, err := DecodeNode(m.AppendBinary(nil), 0, cfg); !errors.Is(err, core.ErrMalformed) {
			t.Errorf("%s: %v accepted (err %v)", name, m, err)
		}
	}
	// An overlong varint for g = 0 of a fresh node: 0x80 0x00.
	b := n.AppendBinary(nil)
	over := append([]byte{b[0], 0x80, 0x00}, b[2:]...)
	if _, err := DecodeNode(over, 0, cfg); !errors.Is(err, core.ErrMalformed) {
		t.Errorf("overlong varint accepted: %v", err)
	}
	if _, err := DecodeNode(b, 3, cfg); err == nil {
		t.Error("host 3 of 3 accepted")
	}
}

func TestMessageRoundTripAndRejects(t *testing.T) {
	for _, m := range []core.Message{Gossip{Table: []uint64{0, 7, 300}}, Ping{}, Pong{HB: 1 << 40}} {
		b := m.AppendBinary(nil)
		got, err := DecodeMessage(b, 3)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(m, got); d != "" {
			t.Fatalf("%v (-want +got):\n%s", m, d)
		}
		for k := range len(b) {
			if _, err := DecodeMessage(b[:k], 3); err == nil {
				t.Errorf("prefix %d of %v accepted", k, m)
			}
		}
	}
	for _, b := range [][]byte{
		{tagGossip, 2, 0, 0},  // two entries for three hosts
		{tagPing, 0},          // trailing byte
		{tagPong, 0x80, 0x00}, // overlong varint
		{9},                   // unknown tag
		{tagGossip, 0xff, 0xff, 0xff, 0xff, 0x0f}, // huge count
	} {
		if _, err := DecodeMessage(b, 3); !errors.Is(err, core.ErrMalformed) {
			t.Errorf("% x: err %v", b, err)
		}
	}
}

// TestDecodersNeverPanicOnGarbage feeds seeded random bytes to both decoders.
func TestDecodersNeverPanicOnGarbage(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 5))
	cfg := &Config{N: 3, Variant: DBRR, TGossip: 4, Cleanup: 2, Ping: true, PingTimeout: 2}
	ok := 0
	for range 20000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.IntN(4)) // small bytes: many decode far
		}
		if n, err := DecodeNode(b, 1, cfg); err == nil {
			ok++
			if string(n.AppendBinary(nil)) != string(b) {
				t.Fatalf("% x decoded to %v, which encodes differently", b, n)
			}
		}
		if m, err := DecodeMessage(b, 3); err == nil && string(m.AppendBinary(nil)) != string(b) {
			t.Fatalf("% x decoded to %v, which encodes differently", b, m)
		}
	}
	t.Logf("%d of 20000 random byte strings were valid node states", ok)
}
