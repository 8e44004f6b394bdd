package correction

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// nodeCmp compares node states field by field: every unexported field,
// the message cache by value, the shared config by identity.
var nodeCmp = cmp.Options{
	cmp.AllowUnexported(Node{}, Msg{}, msgSet{}),
	cmp.Comparer(func(a, b *Config) bool { return a == b }),
}

// randomRun drives the P nodes of cfg through one seeded random run: the
// root broadcasts, then until nothing is left (or 400 steps) a random one
// of the enabled events happens: the delivery of a message in flight (any
// order), the firing of an armed timer, or, for a synchronized start, the
// start at every process at once. Every node state after every step is
// passed to visit.
func randomRun(t *testing.T, cfg *Config, seed uint64, visit func(*Node)) {
	t.Helper()
	ms, err := Nodes(cfg)
	if err != nil {
		t.Fatal(err)
	}
	type msg struct {
		from, to core.Rank
		m        core.Message
	}
	var flight []msg
	armed := map[[2]uint64]bool{} // (rank, timer)
	rng := rand.New(rand.NewPCG(seed, 77))
	apply := func(p core.Rank, ev core.Event) {
		out, err := ms[p].Step(ev, nil)
		if err != nil {
			t.Fatalf("seed %d: %v: %v: %v", seed, p, ev, err)
		}
		for _, e := range out {
			switch e.Kind {
			case core.EffSend:
				flight = append(flight, msg{p, e.To, e.Msg})
			case core.EffSetTimer:
				armed[[2]uint64{uint64(p), e.Timer}] = true
			}
		}
		visit(ms[p].(*Node))
	}
	apply(0, core.Call(Broadcast{Value: Value(1 + seed%1000)}))
	started := cfg.Start != Synchronized
	for step := 0; step < 400; step++ {
		var timers [][2]uint64
		for k := range armed {
			timers = append(timers, k)
		}
		slices.SortFunc(timers, func(a, b [2]uint64) int { // map order is random
			if a[0] != b[0] {
				return int(a[0]) - int(b[0])
			}
			return int(a[1]) - int(b[1])
		})
		n := len(flight) + len(timers)
		if !started {
			n++
		}
		if n == 0 {
			return
		}
		switch i := rng.IntN(n); {
		case i < len(flight):
			m := flight[i]
			flight = append(flight[:i], flight[i+1:]...)
			apply(m.to, core.Receive(m.from, m.m))
		case i < len(flight)+len(timers):
			k := timers[i-len(flight)]
			delete(armed, k)
			apply(core.Rank(k[0]), core.Timer(k[1]))
		default:
			started = true
			for p := range ms {
				apply(core.Rank(p), core.Timer(TimerStart))
			}
		}
	}
}

// encodingConfigs are the configurations the encoding tests run: every
// correction, both starts and early rules, plain and compact, and every
// mutant of the package (they change what the state holds).
func encodingConfigs(t *testing.T) []*Config {
	var out []*Config
	for _, tk := range []TreeKind{BinomialInterleaved, Lame} {
		top, err := NewTopology(Tree{Kind: tk, K: 2}, 9)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []CorrectionKind{NoCorrection, Opportunistic, OptimizedOpportunistic, Checked, Delayed} {
			for _, s := range []StartMode{Synchronized, Overlapped} {
				for _, e := range []EarlyRule{EarlyForwards, EarlySilent} {
					for _, compact := range []bool{false, true} {
						for _, mut := range append(append([]mutant.Name{mutant.None}, LogPMutants...), Mutants...) {
							if mut == MutantKaryHeapOrder {
								continue // a tree mutant: the node state is the same
							}
							out = append(out, &Config{Topology: top, Correction: c, Distance: 2, Start: s, Delay: 3, Early: e, Compact: compact, Mutant: mut})
						}
					}
				}
				// flogsim's rules (Config.CoverStop, Config.NoOverRoot).
				switch c {
				case Checked:
					out = append(out, &Config{Topology: top, Correction: c, Start: s, CoverStop: true},
						&Config{Topology: top, Correction: c, Start: s, CoverStop: true, NoOverRoot: true, Compact: true})
				case Opportunistic, OptimizedOpportunistic:
					out = append(out, &Config{Topology: top, Correction: c, Distance: 2, Start: s, NoOverRoot: true})
				}
			}
		}
	}
	return out
}

// Round trip: DecodeNode(AppendBinary(n)) equals n field by field (go-cmp),
// for every state of seeded random runs of every configuration; and
// distinctness: two states that differ (go-cmp) never share an encoding.
func TestEncodingRoundTripAndDistinctRandomRuns(t *testing.T) {
	states, distinct := 0, 0
	for _, cfg := range encodingConfigs(t) {
		seen := map[string]*Node{}
		for seed := uint64(1); seed <= 4; seed++ {
			randomRun(t, cfg, seed, func(n *Node) {
				states++
				b := n.AppendBinary(nil)
				d, err := DecodeNode(b, n.Rank(), cfg)
				if err != nil {
					t.Fatalf("%v: decode %v: %v", cfg.Correction, n, err)
				}
				if diff := cmp.Diff(n, d, nodeCmp); diff != "" {
					t.Fatalf("%v %v %v mutant=%q: round trip differs (-state +decoded):\n%s", cfg.Correction, cfg.Start, cfg.Early, cfg.Mutant, diff)
				}
				if prev, ok := seen[string(b)]; ok {
					if diff := cmp.Diff(prev, n, nodeCmp); diff != "" {
						t.Fatalf("two states share the encoding %x:\n%s", b, diff)
					}
				} else {
					seen[string(b)] = n.Clone().(*Node)
					distinct++
				}
			})
		}
	}
	if states < 10000 || distinct < 1000 {
		t.Fatalf("only %d states (%d distinct): the runs do not exercise the encoding", states, distinct)
	}
	t.Logf("%d states, %d distinct encodings (per config)", states, distinct)
}

// The decoder rejects garbage with core.ErrMalformed and never panics: a
// truncated encoding, a trailing byte, another rank, each byte replaced by
// every value (accepted only when the result is canonical), random bytes.
func TestDecodeNodeRejectsGarbage(t *testing.T) {
	cfg := encodingConfigs(t)[0]
	cfg = &Config{Topology: cfg.Topology, Correction: Checked, Start: Overlapped}
	var good []*Node
	randomRun(t, cfg, 5, func(n *Node) {
		if n.Colored() && len(good) < 40 {
			good = append(good, n.Clone().(*Node))
		}
	})
	if len(good) == 0 {
		t.Fatal("no colored state")
	}
	for _, n := range good {
		b := n.AppendBinary(nil)
		for i := range b {
			if _, err := DecodeNode(b[:i], n.Rank(), cfg); !errors.Is(err, core.ErrMalformed) {
				t.Fatalf("truncated to %d of %d bytes: %v", i, len(b), err)
			}
		}
		if _, err := DecodeNode(append(b[:len(b):len(b)], 0), n.Rank(), cfg); !errors.Is(err, core.ErrMalformed) {
			t.Fatalf("trailing byte: %v", err)
		}
		other := (n.Rank() + 1) % core.Rank(cfg.Topology.P())
		if _, err := DecodeNode(b, other, cfg); !errors.Is(err, core.ErrMalformed) {
			t.Fatalf("state of %v decoded as %v: %v", n.Rank(), other, err)
		}
		for i := range b {
			for v := 0; v < 256; v++ {
				c := append([]byte(nil), b...)
				c[i] = byte(v)
				if d, err := DecodeNode(c, n.Rank(), cfg); err == nil && string(d.AppendBinary(nil)) != string(c) {
					t.Fatalf("accepted non-canonical %x", c)
				} else if err != nil && !errors.Is(err, core.ErrMalformed) {
					t.Fatalf("%x: error %v does not wrap core.ErrMalformed", c, err)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 20000; i++ {
		c := make([]byte, rng.IntN(24))
		for j := range c {
			c[j] = byte(rng.IntN(256))
		}
		if j := rng.IntN(2); j == 0 && len(c) > 0 {
			c[0] = tagNode
		}
		if d, err := DecodeNode(c, 0, cfg); err == nil && string(d.AppendBinary(nil)) != string(c) {
			t.Fatalf("accepted non-canonical %x", c)
		}
	}
	if _, err := DecodeNode(good[0].AppendBinary(nil), core.Rank(99), cfg); err == nil {
		t.Fatal("rank out of range accepted")
	}
	if _, err := DecodeNode(good[0].AppendBinary(nil), 0, nil); err == nil {
		t.Fatal("nil config accepted")
	}
}
