package gossipfd

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// falseSuspicions runs the worst case MinCleanup reports with T_cleanup = C
// and counts suspicions of hosts alive at the time.
func falseSuspicions(t *testing.T, v fd.Variant, n int, r MinCleanupResult, C int) int {
	t.Helper()
	cyc := fd.Cycle(v, n)
	warm := 2 * max(cyc, fd.CeilLog2(n)+1)
	crash := map[core.Rank]uint64{}
	for i, x := range r.WorstCrashSet {
		crash[core.Rank(x)] = uint64(warm+r.WorstCrashRounds[i]) * RoundTicks
	}
	sc := SimConfig{Node: fd.Config{N: n, Variant: v, TGossip: RoundTicks, Cleanup: uint64(C)},
		DelayMin: 1, DelayMax: 1, Crash: crash, Rounds: warm + 4*n*cyc}
	res, err := Simulate(sc)
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for _, e := range res.Suspicions {
		if sc.Live(e.X, e.Tick) {
			k++
		}
	}
	return k
}

// TestMinCleanupIsTight: with T_cleanup = the reported minimum the worst
// run has no false suspicion; one round less, it has one. The staleness
// measure and the machines' own cleanup check agree.
func TestMinCleanupIsTight(t *testing.T) {
	for _, v := range []fd.Variant{fd.RR, fd.BRR, fd.DBRR} {
		for _, n := range []int{4, 5, 6} {
			for k := 0; k <= 2; k++ {
				r, err := MinCleanup(v, n, k, 0)
				if err != nil {
					t.Fatal(err)
				}
				if r.MinCleanup == Unbounded {
					if falseSuspicions(t, v, n, r, 4*n) == 0 {
						t.Errorf("%v n=%d k=%d: unbounded, yet no false suspicion with T_cleanup = %d", v, n, k, 4*n)
					}
					continue
				}
				if got := falseSuspicions(t, v, n, r, r.MinCleanup); got != 0 {
					t.Errorf("%v n=%d k=%d: %d false suspicions at T_cleanup = %d", v, n, k, got, r.MinCleanup)
				}
				if got := falseSuspicions(t, v, n, r, r.MinCleanup-1); got == 0 {
					t.Errorf("%v n=%d k=%d: no false suspicion at T_cleanup = %d", v, n, k, r.MinCleanup-1)
				}
			}
		}
	}
}

// TestBRRFourNodesUnbounded: the paper's example as a table entry, and DBRR
// repairs it.
func TestBRRFourNodesUnbounded(t *testing.T) {
	r, _ := MinCleanup(fd.BRR, 4, 2, 0)
	if r.MinCleanup != Unbounded {
		t.Errorf("BRR n=4 k=2: %d, want unbounded", r.MinCleanup)
	}
	r, _ = MinCleanup(fd.DBRR, 4, 2, 0)
	if r.MinCleanup == Unbounded {
		t.Error("DBRR n=4 k=2: unbounded")
	}
}

func TestChooseWithZero(t *testing.T) {
	var all, zero int
	choose(6, 3, false, func([]int) { all++ })
	choose(6, 3, true, func(s []int) {
		zero++
		if s[0] != 0 {
			t.Errorf("%v lacks 0", s)
		}
	})
	if all != 20 || zero != 10 {
		t.Errorf("C(6,3) = %d, with 0: %d; want 20 and 10", all, zero)
	}
}
