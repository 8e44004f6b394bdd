package correction

import (
	"reflect"
	"testing"

	"github.com/ftkernel/ftkernel/checker/logp"
	"github.com/ftkernel/ftkernel/core"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// A run is a function of its inputs.
func TestDeterministic(t *testing.T) {
	s := setup{tree: corrsm.Tree{Kind: corrsm.Lame, K: 2}, P: 2000, corr: corrsm.Checked, L: 2, o: 1, syncAt: -1, log: true}
	f := logp.RandomFaults(s.P, 0.04, 7, 7)
	a, _ := s.run(t, f)
	a2 := *a
	a2.Log = append([]logp.Entry(nil), a.Log...)
	a2.SentPerProc = append([]int32(nil), a.SentPerProc...)
	a2.DeliveredAt = append([]int64(nil), a.DeliveredAt...)
	b, _ := s.run(t, f)
	if !reflect.DeepEqual(&a2, b) {
		t.Fatal("two runs differ")
	}
}

// §3.1: opportunistic correction colors every live process when the
// maximum gap is at most 2d; the left-only mutant does not.
func TestSection31OpportunisticGapUpTo2d(t *testing.T) {
	for _, mut := range []bool{false, true} {
		missed := 0
		for _, tree := range []corrsm.Tree{{Kind: corrsm.BinomialInterleaved}, {Kind: corrsm.KaryInterleaved, K: 4}} {
			for _, start := range []corrsm.StartMode{corrsm.Synchronized, corrsm.Overlapped} {
				s := setup{tree: tree, P: 2048, corr: corrsm.Opportunistic, d: 1, start: start, L: 2, o: 1, syncAt: -1}
				s.syncAt = s.disseminationTime(t)
				if mut {
					s.mut = corrsm.MutantOpportunisticLeftOnly
				}
				for run := 0; run < 40; run++ {
					res, _ := s.run(t, logp.RandomFaults(s.P, 0.04, 11, uint64(run)))
					if res.GapMax <= 2*s.d && res.Uncolored > 0 {
						if !mut {
							t.Fatalf("%v %v run %d: gap %d ≤ 2d but %d uncolored", tree, start, run, res.GapMax, res.Uncolored)
						}
						missed++
					}
				}
			}
		}
		if mut && missed == 0 {
			t.Fatal("left-only mutant not detected")
		}
	}
}

// §3.1 checked correction colors everybody whatever the gaps, and each
// participant's sends reach, in each direction, at least its nearest fellow
// participant (that is what stops the neighbour). The stop-on-first-message
// mutant breaks the second property.
func TestSection31CheckedCoverage(t *testing.T) {
	for _, mut := range []bool{false, true} {
		violations := 0
		for _, start := range []corrsm.StartMode{corrsm.Synchronized, corrsm.Overlapped} {
			s := setup{tree: corrsm.Tree{Kind: corrsm.BinomialInterleaved}, P: 2048, corr: corrsm.Checked, start: start, L: 2, o: 1, syncAt: -1}
			s.syncAt = s.disseminationTime(t)
			if mut {
				s.mut = corrsm.MutantCheckedStopEarly
			}
			for run := 0; run < 30; run++ {
				res, nodes := s.run(t, logp.RandomFaults(s.P, 0.04, 12, uint64(run)))
				if res.Uncolored != 0 {
					t.Fatalf("mutant=%t %v: %d uncolored", mut, start, res.Uncolored)
				}
				var parts []int
				for r, m := range nodes {
					if m.(*corrsm.Node).Participant() {
						parts = append(parts, r)
					}
				}
				for i, r := range parts {
					left := (r - parts[(i+len(parts)-1)%len(parts)] + s.P) % s.P
					right := (parts[(i+1)%len(parts)] - r + s.P) % s.P
					rl, rr := nodes[r].(*corrsm.Node).Reach()
					if rl < left || rr < right {
						violations++
						if !mut {
							t.Fatalf("%v run %d: p%d reached (%d,%d), nearest participants at (%d,%d)", start, run, r, rl, rr, left, right)
						}
					}
				}
			}
		}
		if mut && violations == 0 {
			t.Fatal("stop-early mutant not detected")
		}
		t.Logf("mutant=%t: %d coverage violations", mut, violations)
	}
}

// Every correction variant colors all processes without faults, in both
// start modes, with and without send/receive overlap.
func TestAllVariantsFaultFree(t *testing.T) {
	for _, c := range []corrsm.CorrectionKind{corrsm.Opportunistic, corrsm.OptimizedOpportunistic, corrsm.Checked, corrsm.Delayed} {
		for _, start := range []corrsm.StartMode{corrsm.Synchronized, corrsm.Overlapped} {
			for _, nolap := range []bool{false, true} {
				s := setup{tree: corrsm.Tree{Kind: corrsm.Optimal}, P: 500, corr: c, d: 4, start: start, L: 2, o: 1, syncAt: -1, nolap: nolap}
				res, _ := s.run(t, core.RankSet{})
				if res.Uncolored != 0 || res.CorrectionMessages == 0 {
					t.Fatalf("%v %v nolap=%t: %+v", c, start, nolap, res)
				}
			}
		}
	}
}
