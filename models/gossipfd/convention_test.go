package gossipfd

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// roundStaleness is a round model of its own, without the machines: in
// round g every live host s sets hb[s] = g and sends its table to Eqs. 3–5's
// destination of round g; every table arrives within round g and is merged
// (an entry that grows sets lastInc ← g). Host c stops from round crash[c]
// on. It returns the largest staleness g − lastInc[x] of a live x at a live
// host after the warm-up, with the cleanup check at the start of round g
// (before round g's tables are merged: the machines' gossipRound) and at
// its end (after they are merged).
func roundStaleness(v fd.Variant, n int, crash map[int]int, rounds, warm int) (start, end int) {
	cyc := fd.Cycle(v, n)
	hb := make([][]int, n)
	last := make([][]int, n)
	for s := range n {
		hb[s], last[s] = make([]int, n), make([]int, n)
	}
	live := func(s, g int) bool {
		cr, ok := crash[s]
		return !ok || g < cr
	}
	check := func(g int, into *int) {
		if g <= warm {
			return
		}
		for s := range n {
			for x := range n {
				if x != s && live(s, g) && live(x, g) {
					*into = max(*into, g-last[s][x])
				}
			}
		}
	}
	type gossip struct {
		to  int
		tab []int
	}
	for g := 1; g <= rounds; g++ {
		check(g, &start)
		var sent []gossip
		for s := range n {
			if live(s, g) {
				hb[s][s], last[s][s] = g, g
				sent = append(sent, gossip{int(fd.Dest(v, n, core.Rank(s), (g-1)%cyc+1)), append([]int(nil), hb[s]...)})
			}
		}
		for _, m := range sent {
			for x, h := range m.tab {
				if live(m.to, g) && x != m.to && h > hb[m.to][x] {
					hb[m.to][x], last[m.to][x] = h, g
				}
			}
		}
		check(g, &end)
	}
	return start, end
}

// TestCleanupCheckConvention: the smallest T_cleanup without a false
// suspicion depends on when in a round the cleanup check runs. The round
// model above, with the check at the start of the round, gives MinCleanup
// (the machines' convention) for RR and BRR, n = 3…10, with 0, 1 and 2
// crashes (every crash set containing host 0, every crash round within a
// cycle after the warm-up, as MinCleanup); with the check at the end of the
// round every value is one less. So RR's T_cleanup^min is too small without
// crashes at n = 6, 9, 10 only for a check at the start of a round.
func TestCleanupCheckConvention(t *testing.T) {
	for _, v := range []fd.Variant{fd.RR, fd.BRR} {
		for n := 3; n <= 10; n++ {
			cyc := fd.Cycle(v, n)
			warm := 2 * max(cyc, fd.CeilLog2(n)+1)
			after := 2*n*cyc + cyc + n
			paper, _ := fd.PaperCleanupMin(v, n)
			for k := 0; k <= min(2, n-2); k++ {
				want, err := MinCleanup(v, n, k, 1)
				if err != nil {
					t.Fatal(err)
				}
				start, end := 0, 0
				run := func(crash map[int]int, last int) {
					s, e := roundStaleness(v, n, crash, last+after, warm)
					start, end = max(start, s), max(end, e)
				}
				switch k {
				case 0:
					run(nil, warm+cyc)
				case 1:
					for r := warm; r < warm+cyc; r++ {
						run(map[int]int{0: r}, r)
					}
				case 2:
					for c := 1; c < n; c++ {
						for r0 := warm; r0 < warm+cyc; r0++ {
							for r1 := warm; r1 < warm+cyc; r1++ {
								run(map[int]int{0: r0, c: r1}, max(r0, r1))
							}
						}
					}
				}
				if want.MinCleanup == Unbounded {
					if start <= after/2 {
						t.Errorf("%v n=%d k=%d: MinCleanup ∞, round model %d", v, n, k, start)
					}
					continue
				}
				if start != want.MinCleanup || end != start-1 {
					t.Errorf("%v n=%d k=%d: MinCleanup %d; round model start of round %d, end %d (want %d and one less)", v, n, k, want.MinCleanup, start, end, want.MinCleanup)
				}
				t.Logf("%v n=%2d crashes=%d: check at the start of the round %d, at the end %d; T_cleanup^min %d", v, n, k, start, end, paper)
			}
		}
	}
}
