package era

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/core"
)

// refParent is Parent(S_p, p) computed from the paper's set definitions.
func refParent(dead core.RankSet, p core.Rank, n int, t Topology) core.Rank {
	var anc []core.Rank // initial ancestors of p
	switch t {
	case Binary:
		for q := p / 2; p > 0; q /= 2 {
			anc = append(anc, q)
			if q == 0 {
				break
			}
		}
	case Star:
		if p > 0 {
			anc = []core.Rank{0}
		}
	case String:
		for q := core.Rank(0); q < p; q++ {
			anc = append(anc, q)
		}
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
func refChildren(dead core.RankSet, p core.Rank, n int, t Topology) core.RankSet {
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

// TestParentChildrenMatchDefinitions compares Parent and Children with the
// set definitions on random dead sets.
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
		for _, topo := range []Topology{Binary, Star, String} {
			for p := range core.Rank(n) {
				if got, want := Parent(dead, p, n, topo), refParent(dead, p, n, topo); got != want {
					t.Fatalf("%v N=%d dead=%v: Parent(%v) = %v, want %v", topo, n, dead, p, got, want)
				}
				if got, want := Children(dead, p, n, topo), refChildren(dead, p, n, topo); !got.Equal(want) {
					t.Fatalf("%v N=%d dead=%v: Children(%v) = %v, want %v", topo, n, dead, p, got, want)
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
