package gossipfd

import (
	"math"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// TestBRRFourNodesInNeighbours is the paper's §5.1 remark: "in a four nodes
// system, node 2 gets incoming messages from node 1 (in the 1st round) and
// from node 0 (2nd round) only".
func TestBRRFourNodesInNeighbours(t *testing.T) {
	for r := 1; r <= Cycle(BRR, 4); r++ {
		var from []int
		for s := range 4 {
			if Dest(BRR, 4, core.Rank(s), r) == 2 {
				from = append(from, s)
			}
		}
		want := map[int]int{1: 1, 2: 0}[r]
		if len(from) != 1 || from[0] != want {
			t.Errorf("BRR n=4 round %d: node 2 hears from %v, want [%d]", r, from, want)
		}
	}
}

// TestEachRoundIsARotation: in every round of RR, BRR and DBRR each host
// sends one and receives one gossip message (§5.1 RR: "each node will
// receive and send a single gossip message"), and never to itself.
func TestEachRoundIsARotation(t *testing.T) {
	for _, v := range []Variant{RR, BRR, DBRR} {
		for n := 2; n <= 70; n++ {
			for r := 1; r <= Cycle(v, n); r++ {
				hit := make([]bool, n)
				for s := range n {
					d := Dest(v, n, core.Rank(s), r)
					if int(d) == s || hit[d] {
						t.Fatalf("%v n=%d r=%d: host %d sends to %v (self or twice)", v, n, r, s, d)
					}
					hit[d] = true
				}
			}
		}
	}
}

// TestDBRRSecondHalfIsCounterClockwise: Eq. (5)'s second half is the first
// half mirrored, (s − 2^(r−L−1)) mod n with a non-negative modulo.
func TestDBRRSecondHalfIsCounterClockwise(t *testing.T) {
	for n := 2; n <= 40; n++ {
		L := CeilLog2(n)
		for k := 1; k <= L; k++ {
			for s := range n {
				fwd := Dest(DBRR, n, core.Rank(s), k)
				back := Dest(DBRR, n, fwd, L+k)
				if int(back) != s {
					t.Fatalf("n=%d k=%d: %d → %v → %v, want back at %d", n, k, s, fwd, back, s)
				}
			}
		}
	}
}

// TestPaperCleanupMinRR: the integer computation agrees with the paper's
// formula ⌈(√(1+8n)−1)/2⌉ evaluated in floating point.
func TestPaperCleanupMinRR(t *testing.T) {
	for n := 2; n <= 256; n++ {
		got, err := PaperCleanupMin(RR, n)
		want := int(math.Ceil((math.Sqrt(1+8*float64(n)) - 1) / 2))
		if err != nil || got != want {
			t.Errorf("n=%d: %d, %v; want %d", n, got, err, want)
		}
	}
	if c, _ := PaperCleanup(DBRR, 256, CleanupMargin); c != 24 {
		t.Errorf("DBRR n=256 T_cleanup = %d, want 3⌈log2 256⌉ = 24", c)
	}
	if _, err := PaperCleanupMin(Random, 8); err == nil {
		t.Error("Random has no T_cleanup^min, want an error")
	}
}

func TestCeilLog2(t *testing.T) {
	for n := 1; n <= 1025; n++ {
		want := 0
		for 1<<want < n {
			want++
		}
		if got := CeilLog2(n); got != want {
			t.Errorf("CeilLog2(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestNewPlanRejectsSelfAndOutOfRange(t *testing.T) {
	if _, err := NewPlan(3, 2, func(s core.Rank, i int) core.Rank { return s }); err == nil {
		t.Error("a plan naming the host itself was accepted")
	}
	if _, err := NewPlan(3, 2, func(s core.Rank, i int) core.Rank { return 3 }); err == nil {
		t.Error("a plan naming host 3 of 3 was accepted")
	}
	p, err := NewPlan(3, 2, func(s core.Rank, i int) core.Rank { return (s + 1 + core.Rank(i)) % 3 })
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Partner(0, 3); got != 1 {
		t.Errorf("round 3 of a 2-round plan uses entry 0: got %v, want p1", got)
	}
}
