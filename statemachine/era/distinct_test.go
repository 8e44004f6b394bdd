package era

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	"github.com/google/go-cmp/cmp"
)

// nodeDiff compares two nodes field by field with go-cmp: every variable
// of every agreement, S_p, the rank and the configuration's name, but not
// the tree cached from S_p (parent, kids) nor the storage of the records
// (one). Rank sets and values compare by content.
func nodeDiff(x, y *Node) string {
	return cmp.Diff(x, y,
		cmp.AllowUnexported(Node{}, agreement{}),
		cmp.Comparer(func(a, b core.RankSet) bool { return a.Equal(b) }),
		cmp.Comparer(func(a, b Value) bool { return fmt.Sprint(a) == fmt.Sprint(b) }),
		cmp.Comparer(func(a, b Config) bool {
			return fmt.Sprintf("%+v %s", a.Tree(), a.Op.Name()) == fmt.Sprintf("%+v %s", b.Tree(), b.Op.Name())
		}),
		cmp.FilterPath(func(p cmp.Path) bool {
			if sf, ok := p.Last().(cmp.StructField); ok {
				switch sf.Name() {
				case "one", "parent", "kids":
					return true
				}
			}
			return false
		}, cmp.Ignore()),
	)
}

// statesOfRuns collects the state of every node after every step of
// seeded random runs of cfg (rebalanced runs: three blocking agreements of
// MPIX_Comm_agree; others: agreements 0 and 1, concurrent).
func statesOfRuns(cfg Config, runs int) []*Node {
	var out []*Node
	for seed := range runs {
		r := rand.New(rand.NewPCG(uint64(seed), 13))
		c := cfg
		if c.Op == nil {
			c.Op = And
		}
		s := newSim(c)
		s.onStep = func(_ core.Rank, n *Node) { out = append(out, n.clone()) }
		s.blocking = c.Rebalance
		for p := range c.N {
			for a := range uint64(2 + btoi(c.Rebalance)) {
				var v Value = Flag(r.Uint64N(4))
				if c.Op == ULFM {
					var failed core.RankSet
					if r.IntN(4) == 0 {
						failed.Add(core.Rank(r.IntN(c.N)))
					}
					v = NewContribution(r.Uint64N(4), failed, core.RankSet{})
				}
				s.call(core.Rank(p), a, v)
			}
		}
		_ = s.runRandom(r, c.N-1)
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestEncodingDistinguishesStates: over the states reached by seeded random
// runs, flat and X/Y trees, with GC and with Tree Rebalancing, two states
// of the same process that differ by go-cmp never share an encoding, and
// decoding an encoding gives back a state go-cmp finds equal.
func TestEncodingDistinguishesStates(t *testing.T) {
	cfgs := []Config{
		{N: 5},
		{N: 4, Topology: Star, GC: true},
		{N: 6, Op: ULFM, GC: true},
		Config{N: 7}.WithTree(Tree{X: Binary, Y: Star, NodeSize: 3}),
		Config{N: 6, GC: true}.WithTree(Tree{X: String, Y: Binary, NodeSize: 2}),
		{N: 5, Op: ULFM, Rebalance: true},
		Config{N: 6, Op: ULFM, Rebalance: true, GC: true}.WithTree(Tree{X: Binary, Y: Binary, NodeSize: 2}),
	}
	for _, cfg := range cfgs {
		states := statesOfRuns(cfg, 60)
		seen := map[string]*Node{}
		for _, n := range states {
			b := n.AppendBinary(nil)
			key := fmt.Sprintf("%v/%x", n.Rank(), b)
			if old, ok := seen[key]; ok {
				if d := nodeDiff(old, n); d != "" {
					t.Fatalf("%v: two states share the encoding %x (-first +second):\n%s", cfg.Tree(), b, d)
				}
				continue
			}
			seen[key] = n
			dec, err := DecodeNode(b, n.Rank(), n.Config())
			if err != nil {
				t.Fatalf("%v: DecodeNode(%v): %v", cfg.Tree(), n, err)
			}
			if d := nodeDiff(n, dec); d != "" {
				t.Fatalf("%v: decode(encode(s)) differs from s (-s +decoded):\n%s", cfg.Tree(), d)
			}
		}
		t.Logf("%v rebalance=%v gc=%v op=%s: %d states, %d distinct", cfg.Tree(), cfg.Rebalance, cfg.GC, opName(cfg), len(states), len(seen))
		if len(seen) < 50 {
			t.Errorf("only %d distinct states: the runs explore too little", len(seen))
		}
	}
}

func opName(cfg Config) string {
	if cfg.Op == nil {
		return "and"
	}
	return cfg.Op.Name()
}
