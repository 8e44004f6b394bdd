package correction

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker/logp"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// setup describes one Corrected Tree broadcast in the simulator.
type setup struct {
	tree   corrsm.Tree
	P      int
	corr   corrsm.CorrectionKind
	start  corrsm.StartMode
	d      int
	L, o   int64
	prio   logp.Prio
	nolap  bool
	syncAt int64 // synchronized start; -1: after the fault-free dissemination
	mut    mutant.Name
	log    bool
	cfg    *corrsm.Config // cached config, if set
}

func (s setup) config(t testing.TB) *corrsm.Config {
	t.Helper()
	tr := s.tree
	if tr.Kind == corrsm.Optimal {
		tr.L, tr.O = int(s.L), int(s.o)
	}
	top, err := corrsm.NewTopology(tr, s.P)
	if err != nil {
		t.Fatal(err)
	}
	return &corrsm.Config{Topology: top, Correction: s.corr, Distance: s.d, Start: s.start, Delay: 4, Mutant: s.mut}
}

func (s setup) options(syncAt int64) logp.Options {
	opt := logp.Options{
		L: s.L, O: s.o, Prio: s.prio,
		SendSlotTimer:      corrsm.TimerSendSlot,
		Calls:              []logp.Call{{At: 0, Proc: 0, Input: corrsm.Broadcast{Value: 42}}},
		CorrectionKinds:    []string{corrsm.KindCorrection},
		DisseminationKinds: []string{corrsm.KindTree},
		Log:                s.log,
	}
	if s.nolap {
		opt.Overlap = logp.Off
	}
	if s.start == corrsm.Synchronized && s.corr != corrsm.NoCorrection {
		opt.Wakeups = []logp.Wakeup{{At: syncAt, Timer: corrsm.TimerStart}}
	}
	return opt
}

// disseminationTime is the quiescence latency of the fault-free tree alone:
// the synchronized start used when syncAt is -1.
func (s setup) disseminationTime(t testing.TB) int64 {
	d := s
	d.corr, d.syncAt, d.log = corrsm.NoCorrection, 0, false
	r, _ := d.run(t, core.RankSet{})
	return r.QuiescenceLatency
}

func (s setup) run(t testing.TB, faults core.RankSet) (*logp.Result, []core.Machine) {
	t.Helper()
	at := s.syncAt
	if at < 0 {
		at = s.disseminationTime(t)
	}
	cfg := s.cfg
	if cfg == nil {
		cfg = s.config(t)
	}
	nodes, err := corrsm.Nodes(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := logp.New(s.options(at))
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(nodes, faults)
	if err != nil {
		t.Fatal(err)
	}
	if res.Duplicates != 0 {
		t.Fatalf("%d duplicate deliveries", res.Duplicates)
	}
	return res, nodes
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// Lemma 2 and Corollary 1 (§4.2): fault-free synchronized checked
// correction takes L_SCC^FF = 4o + L + ⌊L/o⌋·o from the synchronized start
// to quiescence, and each process sends M_SCC = 3 + ⌊L/o⌋ correction
// messages.
//
// The simulator agrees exactly when o divides L (including the paper's
// L=2, o=1: 8 time steps, 5 messages, §4.1) and finds ⌈L/o⌉ in place of
// ⌊L/o⌋ otherwise. Worked by hand for L=3, o=2, every process alike,
// sends left first:
//
//	sends start at 0 (left 1), 2 (right 1), 4 (left 2), 6 (right 2), 8 (left 3)
//	right neighbour's left-1 send [0,2) arrives 5, received [5,7): right stops at 7
//	left neighbour's right-1 send [2,4) arrives 7, received [7,9): left stops at 9
//
// At 8 nothing has stopped the left direction yet (the stopping receive
// ends at 9 = 3o+L), so the fifth message goes out: M = 5 = 3 + ⌈3/2⌉, not
// 3 + ⌊3/2⌋ = 4. It is received by the process three to the left during
// [8+o+L, 8+2o+L) = [13, 15): quiescence at 15 = 4o + L + ⌈L/o⌉·o, not 13.
// The proof's "the last message at time n·o, n·o ≤ 3o+L" counts sends
// ending by 3o+L, but a send may start at any multiple of o strictly before
// 3o+L, when the stopping message has not been received yet; the two
// counts coincide exactly when o divides L. The paper would be right if a
// process learnt of a message at the start of its receive overhead, but then
// L=2, o=1 gives 4 messages and 7 steps, contradicting §4.1's 5 and 8.
func TestLemma2Corollary1SynchronizedCheckedFaultFree(t *testing.T) {
	for _, tree := range []corrsm.Tree{
		{Kind: corrsm.BinomialInterleaved},
		{Kind: corrsm.Lame, K: 2},
		{Kind: corrsm.KaryInterleaved, K: 4},
		{Kind: corrsm.Optimal},
	} {
		for o := int64(1); o <= 4; o++ {
			for L := int64(1); L <= 9; L++ {
				s := setup{tree: tree, P: 97, corr: corrsm.Checked, L: L, o: o, syncAt: -1}
				T := s.disseminationTime(t)
				res, nodes := s.run(t, core.RankSet{})
				wantLat := 4*o + L + ceilDiv(L, o)*o
				wantMsg := 3 + ceilDiv(L, o)
				paperLat := 4*o + L + (L/o)*o
				paperMsg := 3 + L/o
				if res.CorrectionStart != T {
					t.Fatalf("%v L=%d o=%d: correction started at %d, want %d", tree, L, o, res.CorrectionStart, T)
				}
				if res.CorrectionLatency != wantLat {
					t.Errorf("%v L=%d o=%d: correction latency %d, want %d (paper %d)", tree, L, o, res.CorrectionLatency, wantLat, paperLat)
				}
				top := s.config(t).Topology
				for r := range nodes {
					c := int64(res.SentPerProc[r]) - int64(len(top.Children(core.Rank(r))))
					if c != wantMsg {
						t.Fatalf("%v L=%d o=%d: p%d sent %d correction messages, want %d (paper %d)", tree, L, o, r, c, wantMsg, paperMsg)
					}
				}
				if L%o == 0 && (wantLat != paperLat || wantMsg != paperMsg) {
					t.Fatalf("o | L but the formulas differ")
				}
				if res.CorrectionMessages != wantMsg*int64(s.P) || res.Uncolored != 0 || res.GapMax != 0 {
					t.Fatalf("%v L=%d o=%d: %d correction messages, %d uncolored, gap %d", tree, L, o, res.CorrectionMessages, res.Uncolored, res.GapMax)
				}
			}
		}
	}
}

// §4.1: with L=2, o=1 the checked correction phase lasts 8 time steps and
// every process sends 5 correction messages.
func TestSection41EightStepsFiveMessages(t *testing.T) {
	s := setup{tree: corrsm.Tree{Kind: corrsm.Lame, K: 2}, P: 1024, corr: corrsm.Checked, L: 2, o: 1, syncAt: -1}
	res, _ := s.run(t, core.RankSet{})
	if res.CorrectionLatency != 8 || res.CorrectionMessages != 5*1024 {
		t.Fatalf("correction %d steps, %d messages; want 8 and %d", res.CorrectionLatency, res.CorrectionMessages, 5*1024)
	}
}

// With Prio=send the stopping receive and the next send slot at 3o+L tie the
// other way when o | L, and one more message goes out: the paper's numbers
// need receive priority.
func TestLemma2NeedsReceivePriority(t *testing.T) {
	s := setup{tree: corrsm.Tree{Kind: corrsm.BinomialInterleaved}, P: 64, corr: corrsm.Checked, L: 2, o: 1, syncAt: -1, prio: logp.PrioSend}
	res, _ := s.run(t, core.RankSet{})
	if res.CorrectionLatency != 9 || res.CorrectionMessages != 6*64 {
		t.Fatalf("prio=send: %d steps, %d messages; want 9 and %d", res.CorrectionLatency, res.CorrectionMessages, 6*64)
	}
}

// Lemma 3 (§4.2, Appendix A): with faults, L_SCC^FF + g_max·o ≤ L_SCC ≤
// L_SCC^FF + (2·g_max+1)·o, L_SCC measured from the synchronized start to
// quiescence and g_max after dissemination.
func TestLemma3Bounds(t *testing.T) {
	type key struct {
		L, o int64
	}
	runs := 80
	if testing.Short() {
		runs = 20
	}
	for _, lo := range []key{{2, 1}, {1, 1}, {4, 2}, {3, 2}} {
		violLow, violHigh, total := 0, 0, 0
		var example string
		for _, tree := range []corrsm.Tree{
			{Kind: corrsm.BinomialInterleaved},
			{Kind: corrsm.Lame, K: 2},
			{Kind: corrsm.KaryInterleaved, K: 4},
			{Kind: corrsm.Optimal},
		} {
			s := setup{tree: tree, P: 4096, corr: corrsm.Checked, L: lo.L, o: lo.o, syncAt: -1}
			s.syncAt = s.disseminationTime(t)
			s.cfg = s.config(t)
			ff, _ := s.run(t, core.RankSet{})
			for i, rate := range []float64{0.001, 0.01, 0.02, 0.04} {
				for run := 0; run < runs; run++ {
					f := logp.RandomFaults(s.P, rate, uint64(100+i), uint64(run))
					res, _ := s.run(t, f)
					total++
					if res.Uncolored != 0 {
						t.Fatalf("%v: checked correction left %d uncolored", tree, res.Uncolored)
					}
					g := int64(res.GapMax)
					lo2 := ff.CorrectionLatency + g*lo.o
					hi := ff.CorrectionLatency + (2*g+1)*lo.o
					if res.CorrectionLatency < lo2 {
						violLow++
					}
					if res.CorrectionLatency > hi {
						violHigh++
						if example == "" {
							example = fmt.Sprintf("%v rate=%v run=%d gmax=%d L_SCC=%d > %d", tree, rate, run, g, res.CorrectionLatency, hi)
						}
					}
				}
			}
		}
		t.Logf("L=%d o=%d: %d runs, %d below the lower bound, %d above the upper bound %s", lo.L, lo.o, total, violLow, violHigh, example)
		if lo.L%lo.o == 0 && violHigh != 0 {
			t.Errorf("L=%d o=%d: upper bound violated: %s", lo.L, lo.o, example)
		}
	}
}
