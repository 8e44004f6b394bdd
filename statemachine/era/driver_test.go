package era

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// TestFailureFreeAgreementFIFO runs N nodes with a FIFO network and no
// failure: everyone returns the AND of the inputs, with N-1 UP and N-1 DOWN
// messages (the paper's 2(N-1) messages, §2 and §4).
func TestFailureFreeAgreementFIFO(t *testing.T) {
	for _, topo := range []Topology{Binary, Star, String} {
		for _, n := range []int{1, 2, 3, 7, 8, 64, 1000} {
			t.Run(fmt.Sprintf("%v/N=%d", topo, n), func(t *testing.T) {
				s := newSim(Config{N: n, Topology: topo, Op: And})
				want := Flag(^uint64(0))
				for p := range n {
					v := Flag(^uint64(0) &^ (1 << (p % 64)))
					if p%3 != 0 {
						v = ^Flag(0)
					}
					want &= v
					s.call(core.Rank(p), 5, v)
				}
				if err := s.runFIFO(); err != nil {
					t.Fatal(err)
				}
				if err := s.checkAgreement(5); err != nil {
					t.Fatal(err)
				}
				for p := range n {
					if got := s.returned[p][5]; got != want {
						t.Fatalf("%v returned %v, want %v", core.Rank(p), got, want)
					}
				}
				if s.sent["UP"] != n-1 || s.sent["DOWN"] != n-1 || s.sent["RESULTREQUEST"] != 0 {
					t.Fatalf("sent %v, want %d UP and %d DOWN", s.sent, n-1, n-1)
				}
			})
		}
	}
}

// TestFailureFreeULFM runs MPIX_Comm_agree over ULFM contributions: the
// decision is the AND of the flags, the union of the known failures, the
// intersection of the acknowledged ones, and Err reports an unacknowledged
// failure.
func TestFailureFreeULFM(t *testing.T) {
	s := newSim(Config{N: 6, Op: ULFM})
	for p := range 6 {
		var known, acked core.RankSet
		known.Add(9 % 6) // everyone knows p3 failed
		acked.Add(3)
		if p == 4 {
			known.Add(5) // p4 alone knows p5, and has not acknowledged it
		}
		s.call(core.Rank(p), 0, NewContribution(uint64(0xff)&^(1<<p), known, acked))
	}
	if err := s.runFIFO(); err != nil {
		t.Fatal(err)
	}
	if err := s.checkAgreement(0); err != nil {
		t.Fatal(err)
	}
	c := s.returned[2][0].(Contribution)
	if c.Flag != 0xc0 || c.Failed.String() != "{p3,p5}" || c.Acked.String() != "{p3}" || !c.Err() {
		t.Fatalf("decision %v err=%v, want flag 0xc0 failed {p3,p5} acked {p3} err", c, c.Err())
	}
}

// TestRandomSchedulesWithFailures checks Termination, Agreement among the
// living, Participation and Irrevocability (no second Decide or Return) on
// random schedules with crashes, for every topology, with and without GC.
func TestRandomSchedulesWithFailures(t *testing.T) {
	seeds := 400
	if s := os.Getenv("ERA_SEEDS"); s != "" {
		seeds, _ = strconv.Atoi(s)
	}
	if testing.Short() {
		seeds = 60
	}
	for _, topo := range []Topology{Binary, Star, String} {
		for _, gc := range []bool{false, true} {
			for n := 2; n <= 8; n++ {
				for seed := range seeds {
					cfg := Config{N: n, Topology: topo, GC: gc}
					if err := randomRun(cfg, uint64(seed), n-1); err != nil {
						t.Fatalf("%v gc=%v N=%d seed=%d: %v", topo, gc, n, seed, err)
					}
				}
			}
		}
	}
}

// TestRandomSchedulesHierarchical is TestRandomSchedulesWithFailures on the
// nine X/Y trees of §3, at node sizes 2 and 3.
func TestRandomSchedulesHierarchical(t *testing.T) {
	seeds := 100
	if testing.Short() {
		seeds = 20
	}
	for _, s := range []int{2, 3} {
		for _, tree := range allTrees(s)[3:] {
			for n := 2; n <= 8; n++ {
				for seed := range seeds {
					cfg := Config{N: n, GC: seed%2 == 1}.WithTree(tree)
					if err := randomRun(cfg, uint64(seed), n-1); err != nil {
						t.Fatalf("%v N=%d seed=%d: %v", tree, n, seed, err)
					}
				}
			}
		}
	}
}

// TestRandomSchedulesRebalanced checks the §2.1 properties over three
// consecutive agreements with Tree Rebalancing (§3) on random schedules
// with crashes, on flat and X/Y trees.
func TestRandomSchedulesRebalanced(t *testing.T) {
	seeds := 150
	if testing.Short() {
		seeds = 30
	}
	for _, tree := range append(allTrees(2), Tree{X: Binary, Y: Star, NodeSize: 3}) {
		for n := 2; n <= 8; n++ {
			for seed := range seeds {
				cfg := Config{N: n, GC: seed%2 == 1}.WithTree(tree)
				if err := randomRebalancedRun(cfg, uint64(seed), n-1); err != nil {
					t.Fatalf("%v N=%d seed=%d: %v", tree, n, seed, err)
				}
			}
		}
	}
}
