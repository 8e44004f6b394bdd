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

// §3.1 "Processes that become colored during correction do not send any
// messages", read strictly (corrsm.EarlySilent), on the example of issue
// 10: P = 64, interleaved binomial tree, opportunistic correction with
// d = 4, overlapped start, L = 2, o = 1, g = 1, ranks 1, 2, 4, 8, 16, 32
// failed. Worked by hand:
//
//   - The root's children in the binomial tree are 0 + 2^i, i = 0 … 5:
//     1, 2, 4, 8, 16, 32, all failed. The root sends these 6 TREE messages
//     (each costs it o and is dropped on arrival); nobody else is colored
//     by the tree.
//   - Overlapped: right after them the root corrects, d = 4 on each side,
//     left first: 63, 1, 62, 2, 61, 3, 60, 4, that is 8 CORRECTION
//     messages. 1, 2, 4 are failed; 63, 62, 61, 60 and 3 are colored by
//     correction and, by the rule, send nothing.
//   - Messages: 6 + 8 = 14, all from the root; 8 of them correction.
//   - Colored: the root and 3, 60, 61, 62, 63, i.e. 6 of the 58 live
//     processes: 52 stay uncolored. The largest gap of ranks failed or not
//     colored by the tree is everything but the root: 63.
//
// With the §3.3 reading (corrsm.EarlyForwards, the default) the same
// run colors 3's and 60 … 63's subtrees by the tree, which then correct:
// there a process colored by correction sends exactly its tree messages.
func TestSection31ColoredByCorrectionSendNothing(t *testing.T) {
	faults := core.RankSet{}
	for _, r := range []core.Rank{1, 2, 4, 8, 16, 32} {
		faults.Add(r)
	}
	s := setup{tree: corrsm.Tree{Kind: corrsm.BinomialInterleaved}, P: 64, corr: corrsm.Opportunistic, d: 4,
		start: corrsm.Overlapped, L: 2, o: 1, early: corrsm.EarlySilent, log: true}
	res, nodes := s.run(t, faults)
	if res.Live != 58 || res.Uncolored != 52 || res.Messages != 14 || res.CorrectionMessages != 8 || res.Dropped != 9 || res.GapMax != 63 {
		t.Fatalf("silent: live %d, uncolored %d, messages %d (correction %d, dropped %d), gap %d; want 58, 52, 14 (8, 9), 63",
			res.Live, res.Uncolored, res.Messages, res.CorrectionMessages, res.Dropped, res.GapMax)
	}
	if res.SentPerProc[0] != 14 {
		t.Fatalf("root sent %d, want 14", res.SentPerProc[0])
	}
	var byCorr []core.Rank
	for r, m := range nodes {
		if m.(*corrsm.Node).Via() == corrsm.ViaCorrection {
			byCorr = append(byCorr, core.Rank(r))
		}
	}
	if want := []core.Rank{3, 60, 61, 62, 63}; !reflect.DeepEqual(byCorr, want) {
		t.Fatalf("colored by correction: %v, want %v", byCorr, want)
	}

	s.early = corrsm.EarlyForwards
	fw, nodes := s.run(t, faults)
	top := s.config(t).Topology
	for r, m := range nodes {
		n := m.(*corrsm.Node)
		if n.Via() == corrsm.ViaCorrection && int(fw.SentPerProc[r]) != len(top.Children(core.Rank(r))) {
			t.Fatalf("forwards: p%d colored by correction sent %d, its tree has %d children", r, fw.SentPerProc[r], len(top.Children(core.Rank(r))))
		}
	}
	if fw.Uncolored >= res.Uncolored {
		t.Fatalf("forwards: %d uncolored, no fewer than silent's %d", fw.Uncolored, res.Uncolored)
	}
	t.Logf("forwards (§3.3): %d uncolored, %d messages (%d correction); silent (§3.1): %d uncolored, %d messages",
		fw.Uncolored, fw.Messages, fw.CorrectionMessages, res.Uncolored, res.Messages)
}

// §4.3, which reading of the early-correction rule the paper's figures
// use: "With less than 1% of failed processes, Corrected Trees with
// opportunistic correction colored all the processes … The total number of
// not fully coloring broadcast operations was around 2,600 out of two
// million simulations" (optimized overlapped opportunistic correction,
// d = 4, §4: "For the rest of the paper Corrected Trees use optimized
// opportunistic correction"). On the binomial tree with 4% failed, 100
// runs of P = 4096: under EarlyForwards (§3.3) every run colors everybody;
// under EarlySilent (§3.1 strict) a process colored early by correction
// leaves its subtree to others' correction, and runs with uncolored
// processes appear at a rate far above the paper's 0.13%.
func TestSection43EarlyForwardsMatchesOpportunisticFigures(t *testing.T) {
	runs := 100
	var bad [2]int
	for i, early := range []corrsm.EarlyRule{corrsm.EarlyForwards, corrsm.EarlySilent} {
		s := setup{tree: corrsm.Tree{Kind: corrsm.BinomialInterleaved}, P: 4096, corr: corrsm.OptimizedOpportunistic, d: 4,
			start: corrsm.Overlapped, L: 2, o: 1, early: early}
		s.cfg = s.config(t)
		for run := 0; run < runs; run++ {
			if res, _ := s.run(t, logp.RandomFaults(s.P, 0.04, 3, uint64(run))); res.Uncolored > 0 {
				bad[i]++
			}
		}
	}
	t.Logf("runs with uncolored processes, of %d: forwards %d, silent %d", runs, bad[0], bad[1])
	if bad[0] != 0 || bad[1] == 0 {
		t.Fatalf("forwards %d, silent %d runs with uncolored processes of %d", bad[0], bad[1], runs)
	}
}
