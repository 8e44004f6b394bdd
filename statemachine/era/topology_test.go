package era

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/core"
)

// refInitParent is the initial parent of r in tree t over n ranks, from
// §2 and §3 written out plainly: a flat tree is an X/Y tree with one rank
// per node; within node k (ranks kS …), position i > 0 hangs from its Y
// parent; a representative (i = 0) of node k > 0 from the representative
// of k's X parent.
func refInitParent(t Tree, r core.Rank) core.Rank {
	flatParent := func(topo Topology, i int) int {
		switch topo {
		case Binary:
			return i / 2
		case Star:
			return 0
		}
		return i - 1
	}
	s := max(t.NodeSize, 1)
	k, i := int(r)/s, int(r)%s
	switch {
	case r == 0:
		return core.NoRank
	case i > 0:
		return core.Rank(k*s + flatParent(t.Y, i))
	}
	return core.Rank(flatParent(t.X, k) * s)
}

// refParent is Parent(S_p, p) computed from the paper's set definitions.
func refParent(dead core.RankSet, p core.Rank, n int, t Tree) core.Rank {
	var anc []core.Rank // initial ancestors of p
	for q := refInitParent(t, p); p > 0 && q != core.NoRank; q = refInitParent(t, q) {
		anc = append(anc, q)
	}
	best := core.NoRank
	for _, q := range anc {
		if !dead.Has(q) && q > best {
			best = q
		}
	}
	if best != core.NoRank {
		return best
	}
	for q := core.Rank(0); q < p; q++ {
		if !dead.Has(q) {
			return q
		}
	}
	return core.NoRank
}

// refChildren is {q alive : Parent(S_p, q) = p}.
func refChildren(dead core.RankSet, p core.Rank, n int, t Tree) core.RankSet {
	var out core.RankSet
	for q := range core.Rank(n) {
		if !dead.Has(q) && refParent(dead, q, n, t) == p {
			out.Add(q)
		}
	}
	return out
}

// TestParentBinaryTreeAncEld checks the §2 definitions on the mended trees
// of Figure 1 (node 1 dead) and on a few more.
func TestParentBinaryTreeAncEld(t *testing.T) {
	var dead1 core.RankSet
	dead1.Add(1)
	var dead01 core.RankSet
	dead01.Add(0)
	dead01.Add(1)
	tests := []struct {
		topo     Topology
		dead     core.RankSet
		parents  string // Parent of 0 … 7
		children string // Children of 0
	}{
		{Binary, core.RankSet{}, "[⊥ p0 p1 p1 p2 p2 p3 p3]", "{p1}"},
		// Figure 1, binary: 2 and 3 are adopted by their grandparent 0.
		{Binary, dead1, "[⊥ p0 p0 p0 p2 p2 p3 p3]", "{p2,p3}"},
		// No alive ancestor: 2 is root (Eld = ∅), 3 takes min Eld = 2.
		{Binary, dead01, "[⊥ ⊥ ⊥ p2 p2 p2 p3 p3]", "{}"},
		{Star, core.RankSet{}, "[⊥ p0 p0 p0 p0 p0 p0 p0]", "{p1,p2,p3,p4,p5,p6,p7}"},
		// Figure 1, star: nothing changes but 1 leaves.
		{Star, dead1, "[⊥ p0 p0 p0 p0 p0 p0 p0]", "{p2,p3,p4,p5,p6,p7}"},
		{Star, dead01, "[⊥ ⊥ ⊥ p2 p2 p2 p2 p2]", "{}"},
		{String, core.RankSet{}, "[⊥ p0 p1 p2 p3 p4 p5 p6]", "{p1}"},
		// Figure 1, string: 2 hangs from 0.
		{String, dead1, "[⊥ p0 p0 p2 p3 p4 p5 p6]", "{p2}"},
	}
	for _, tt := range tests {
		var ps []core.Rank
		for p := range core.Rank(8) {
			ps = append(ps, Parent(tt.dead, p, 8, tt.topo))
		}
		if got := fmt.Sprint(ps); got != tt.parents {
			t.Errorf("%v dead=%v: parents %s, want %s", tt.topo, tt.dead, got, tt.parents)
		}
		if got := Children(tt.dead, 0, 8, tt.topo).String(); got != tt.children {
			t.Errorf("%v dead=%v: Children(0) = %s, want %s", tt.topo, tt.dead, got, tt.children)
		}
	}
}

// allTrees lists the three flat trees and the nine X/Y trees of node size s.
func allTrees(s int) []Tree {
	out := []Tree{{X: Binary}, {X: Star}, {X: String}}
	for _, x := range []Topology{Binary, Star, String} {
		for _, y := range []Topology{Binary, Star, String} {
			out = append(out, Tree{X: x, Y: y, NodeSize: s})
		}
	}
	return out
}

// TestParentChildrenMatchDefinitions compares Parent and Children with the
// set definitions on random dead sets, for flat and X/Y trees.
func TestParentChildrenMatchDefinitions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		n := 1 + r.IntN(70)
		var dead core.RankSet
		for q := range n {
			if r.IntN(3) == 0 {
				dead.Add(core.Rank(q))
			}
		}
		for _, tree := range allTrees(1 + r.IntN(9)) {
			for p := range core.Rank(n) {
				if got, want := tree.Parent(dead, p, n), refParent(dead, p, n, tree); got != want {
					t.Fatalf("%v N=%d dead=%v: Parent(%v) = %v, want %v", tree, n, dead, p, got, want)
				}
				if got, want := tree.Children(dead, p, n), refChildren(dead, p, n, tree); !got.Equal(want) {
					t.Fatalf("%v N=%d dead=%v: Children(%v) = %v, want %v", tree, n, dead, p, got, want)
				}
			}
		}
	}
}

// TestChildrenBinaryIsFastAtScale measures Children at N = 6000: with a few
// failures the binary tree's children are found without scanning all ranks.
func TestChildrenBinaryIsFastAtScale(t *testing.T) {
	const n = 6000
	var dead core.RankSet
	for _, q := range []core.Rank{0, 1, 5, 17, 300, 2999} {
		dead.Add(q)
	}
	start := time.Now()
	const reps = 200
	for range reps {
		for p := core.Rank(0); p < n; p += 7 {
			Children(dead, p, n, Binary)
		}
	}
	per := time.Since(start) / time.Duration(reps*(n/7))
	t.Logf("Children(binary, N=6000, 6 dead): %v per call", per)
	if per > 20*time.Microsecond {
		t.Errorf("Children took %v per call", per)
	}
	if got := Children(dead, 2, n, Binary).String(); got != "{p3,p4,p10,p11}" {
		t.Errorf("Children(2) = %s, want {p3,p4,p10,p11} (3 by Eld, 4 directly, 10 and 11 through 5)", got)
	}
}

// ranks builds a rank set.
func ranks(rs ...core.Rank) core.RankSet {
	var s core.RankSet
	for _, r := range rs {
		s.Add(r)
	}
	return s
}

// TestHierarchicalTrees checks §3's X/Y trees at N = 8, S = 4 (nodes
// {p0…p3} and {p4…p7}, representatives p0 and p4) against parents and
// children computed by hand, with and without dead ranks; and one S = 3
// tree whose last node is smaller.
func TestHierarchicalTrees(t *testing.T) {
	binStar := Tree{X: Binary, Y: Star, NodeSize: 4}
	binBin := Tree{X: Binary, Y: Binary, NodeSize: 4}
	starString := Tree{X: Star, Y: String, NodeSize: 4}
	tests := []struct {
		tree     Tree
		dead     core.RankSet
		parents  string                     // Parent of p0 … p7
		children map[core.Rank]core.RankSet // Children of some ranks
	}{
		// bin/star: star within each node, p4 under p0.
		{binStar, ranks(), "[⊥ p0 p0 p0 p0 p4 p4 p4]",
			map[core.Rank]core.RankSet{0: ranks(1, 2, 3, 4), 4: ranks(5, 6, 7), 5: ranks()}},
		// Node representative p4 dead: its node goes to p0 (Anc).
		{binStar, ranks(4), "[⊥ p0 p0 p0 p0 p0 p0 p0]",
			map[core.Rank]core.RankSet{0: ranks(1, 2, 3, 5, 6, 7), 4: ranks()}},
		// Root p0 dead: p1 is root (Eld = ∅) and adopts p2, p3 and p4.
		{binStar, ranks(0), "[⊥ ⊥ p1 p1 p1 p4 p4 p4]",
			map[core.Rank]core.RankSet{1: ranks(2, 3, 4), 4: ranks(5, 6, 7)}},
		// bin/bin: within a node 1 → 0, 2 and 3 → 1.
		{binBin, ranks(), "[⊥ p0 p1 p1 p0 p4 p5 p5]",
			map[core.Rank]core.RankSet{0: ranks(1, 4), 1: ranks(2, 3), 4: ranks(5), 5: ranks(6, 7)}},
		// Table 2d's "node master" case: p4 dead, p5 goes to p0.
		{binBin, ranks(4), "[⊥ p0 p1 p1 p0 p0 p5 p5]",
			map[core.Rank]core.RankSet{0: ranks(1, 5), 5: ranks(6, 7)}},
		// Table 2d's "entire node" case.
		{binBin, ranks(4, 5, 6, 7), "[⊥ p0 p1 p1 p0 p0 p0 p0]",
			map[core.Rank]core.RankSet{0: ranks(1), 1: ranks(2, 3)}},
		{binBin, ranks(1), "[⊥ p0 p0 p0 p0 p4 p5 p5]",
			map[core.Rank]core.RankSet{0: ranks(2, 3, 4)}},
		// star/string: a chain within each node, p4 under p0.
		{starString, ranks(), "[⊥ p0 p1 p2 p0 p4 p5 p6]",
			map[core.Rank]core.RankSet{0: ranks(1, 4), 4: ranks(5), 6: ranks(7)}},
		{starString, ranks(5), "[⊥ p0 p1 p2 p0 p4 p4 p6]",
			map[core.Rank]core.RankSet{4: ranks(6)}},
		// p0 and p4 dead: p1 is root; p5 has no alive ancestor: min Eld p1.
		{starString, ranks(0, 4), "[⊥ ⊥ p1 p2 p1 p1 p5 p6]",
			map[core.Rank]core.RankSet{1: ranks(2, 5), 5: ranks(6)}},
		// S = 3: nodes {p0,p1,p2} {p3,p4,p5} {p6,p7}; node 2 under node 1.
		{Tree{X: Binary, Y: Star, NodeSize: 3}, ranks(), "[⊥ p0 p0 p0 p3 p3 p3 p6]",
			map[core.Rank]core.RankSet{0: ranks(1, 2, 3), 3: ranks(4, 5, 6), 6: ranks(7)}},
	}
	for _, tt := range tests {
		var ps []core.Rank
		for p := range core.Rank(8) {
			ps = append(ps, tt.tree.Parent(tt.dead, p, 8))
		}
		if got := fmt.Sprint(ps); got != tt.parents {
			t.Errorf("%v dead=%v: parents %s, want %s", tt.tree, tt.dead, got, tt.parents)
		}
		for p, want := range tt.children {
			if got := tt.tree.Children(tt.dead, p, 8); !got.Equal(want) {
				t.Errorf("%v dead=%v: Children(%v) = %v, want %v", tt.tree, tt.dead, p, got, want)
			}
		}
	}
}

// TestHierarchicalDegenerateSizes: S = 1 is the flat X tree (every rank
// its own node), S ≥ N the flat Y tree (one node).
func TestHierarchicalDegenerateSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		n := 1 + r.IntN(40)
		var dead core.RankSet
		for q := range n {
			if r.IntN(4) == 0 {
				dead.Add(core.Rank(q))
			}
		}
		for _, x := range []Topology{Binary, Star, String} {
			for _, y := range []Topology{Binary, Star, String} {
				one, whole := Tree{X: x, Y: y, NodeSize: 1}, Tree{X: x, Y: y, NodeSize: n + r.IntN(3)}
				for p := range core.Rank(n) {
					if got, want := one.Parent(dead, p, n), Parent(dead, p, n, x); got != want {
						t.Fatalf("%v N=%d dead=%v: Parent(%v) = %v, flat %v gives %v", one, n, dead, p, got, x, want)
					}
					if got, want := whole.Children(dead, p, n), Children(dead, p, n, y); !got.Equal(want) {
						t.Fatalf("%v N=%d dead=%v: Children(%v) = %v, flat %v gives %v", whole, n, dead, p, got, y, want)
					}
				}
			}
		}
	}
}

// TestParseTree: flat names, X/Y names with a node size, and errors.
func TestParseTree(t *testing.T) {
	good := map[string]Tree{
		"binary":      {X: Binary},
		"star":        {X: Star},
		"string":      {X: String},
		"bin/star":    {X: Binary, Y: Star, NodeSize: 16},
		"star/string": {X: Star, Y: String, NodeSize: 16},
		"binary/bin":  {X: Binary, Y: Binary, NodeSize: 16},
	}
	for s, want := range good {
		size := 16
		if want.NodeSize == 0 {
			size = 0
		}
		got, err := ParseTree(s, size)
		if err != nil || got != want {
			t.Errorf("ParseTree(%q, %d) = %v, %v; want %v", s, size, got, err, want)
		}
		if _, err := New(0, Config{N: 4}.WithTree(got)); err != nil {
			t.Errorf("New with %v: %v", got, err)
		}
	}
	bad := []struct {
		s    string
		size int
	}{{"", 0}, {"tree", 0}, {"binary", 4}, {"bin/star", 0}, {"bin/star", -1}, {"bin/", 4},
		{"/star", 4}, {"bin/star/string", 4}, {"Binary", 0}, {"bin/ring", 2}, {"bin/star", MaxN + 1}}
	for _, b := range bad {
		if got, err := ParseTree(b.s, b.size); err == nil {
			t.Errorf("ParseTree(%q, %d) = %v, want an error", b.s, b.size, got)
		}
	}
	for _, cfg := range []Config{{N: 4, Intra: Star}, {N: 4, Topology: 3}, {N: 4, NodeSize: 2, Intra: 7}, {N: 4, NodeSize: -1}} {
		if _, err := New(0, cfg); err == nil {
			t.Errorf("New(%+v): no error", cfg)
		}
	}
}
