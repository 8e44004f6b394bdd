package gossipfd

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// TestCleanupMinMatchesMachines: the routing-level count agrees with the
// machines driven by Simulate in the synchronous round model. A node's table
// right after its gossip timer of round g+1 holds what it merged until the
// end of round g; a heartbeat of src generated in round g0 has reached every
// host after k rounds when every such table of round g0+k has hb[src] ≥ g0.
func TestCleanupMinMatchesMachines(t *testing.T) {
	for _, v := range []fd.Variant{fd.RR, fd.BRR, fd.DBRR, fd.Random} {
		for n := 2; n <= 12; n++ {
			want, err := CleanupMin(v, n, 7)
			if err != nil {
				t.Fatal(err)
			}
			cfg := fd.Config{N: n, Variant: v, TGossip: 4, Cleanup: 1 << 40}
			if v == fd.Random {
				cfg.Plan, _ = RandomPlan(n, RandomPlanRounds, 7)
			}
			rounds := want.Cycle + want.Worst + 2
			view := make([][][]uint64, rounds+1) // view[g][d] = d's table after its timer of round g
			_, err = Simulate(SimConfig{Node: cfg, DelayMin: 1, DelayMax: 1, Rounds: rounds,
				Observe: func(_ uint64, node *fd.Node) {
					g := node.Round()
					if view[g] == nil {
						view[g] = make([][]uint64, n)
					}
					row := make([]uint64, n)
					for x := range n {
						row[x] = node.Heartbeat(core.Rank(x))
					}
					view[g][node.Self()] = row
				}})
			if err != nil {
				t.Fatal(err)
			}
			best, worst := -1, 0
			for g0 := 1; g0 <= want.Cycle; g0++ {
				for src := range n {
					if v != fd.Random && src > 0 {
						break
					}
					k := 1
					for ; g0+k <= rounds; k++ {
						all := true
						for d := range n {
							if view[g0+k][d][src] < uint64(g0) {
								all = false
							}
						}
						if all {
							break
						}
					}
					if g0+k > rounds {
						t.Fatalf("%v n=%d src=%d g0=%d: not spread within the horizon", v, n, src, g0)
					}
					if best < 0 || k < best {
						best = k
					}
					worst = max(worst, k)
				}
			}
			if best != want.Best || worst != want.Worst {
				t.Errorf("%v n=%d: machines best %d worst %d, routing %d %d", v, n, best, worst, want.Best, want.Worst)
			}
		}
	}
}

func TestCleanupMinRejectsBadN(t *testing.T) {
	if _, err := CleanupMin(fd.BRR, 1, 0); err == nil {
		t.Error("n = 1 accepted")
	}
}
