package gossipfd

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

func checkModel(t *testing.T, v fd.Variant, n, crashes, cleanup int, ping bool) *CheckModel {
	t.Helper()
	cyc := fd.Cycle(v, n)
	m, err := NewCheckModel(CheckConfig{
		Node:    fd.Config{N: n, Variant: v, Cleanup: uint64(cleanup), Ping: ping},
		Crashes: crashes, CrashWindow: 2 * cyc, Horizon: 2*cyc + cleanup + 2*cyc + 2,
		DetectBound: cleanup + 2*cyc + 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCheckFindsPaperExample: the checker finds §5.1's false suspicion for
// BRR at n = 4 with two crashes, as its shortest counterexample (two
// crashes before round 1, then T_cleanup + 1 = 5 rounds), with and without
// symmetry; with the ping phase accuracy holds but no-false-suspicion
// still fails; DBRR holds all three properties.
func TestCheckFindsPaperExample(t *testing.T) {
	for _, sym := range []bool{false, true} {
		m := checkModel(t, fd.BRR, 4, 2, 4, false)
		r := checker.Search[*RoundState](m, checker.Options{Symmetry: sym, Workers: 1})
		if len(r.Violations) == 0 {
			t.Fatalf("sym=%v: no violation found", sym)
		}
		tr := r.Violations[0]
		if len(tr.Steps) != 7 || tr.Violation.Property != "no-false-suspicion" && tr.Violation.Property != "accuracy" {
			t.Errorf("sym=%v: %s after %d steps, want 7", sym, tr.Violation.Property, len(tr.Steps))
		}
	}
	m := checkModel(t, fd.BRR, 4, 2, 4, true)
	r := checker.Search[*RoundState](m, checker.Options{Workers: 1, ContinueAfterViolation: true})
	got := map[string]bool{}
	for _, tr := range r.Violations {
		got[tr.Violation.Property] = true
	}
	if got["accuracy"] || !got["no-false-suspicion"] {
		t.Errorf("BRR with ping: violated %v, want no-false-suspicion only", got)
	}
	for _, k := range []int{1, 2} {
		m := checkModel(t, fd.DBRR, 4, k, 6, true)
		r := checker.Search[*RoundState](m, checker.Options{Workers: 1, Symmetry: true})
		if len(r.Violations) != 0 || !r.Complete {
			t.Errorf("DBRR n=4 crashes=%d: %d violations (%v), complete %v", k, len(r.Violations), r.Violations, r.Complete)
		}
	}
}

// TestCheckSymmetryReduces: same verdict, fewer states.
func TestCheckSymmetryReduces(t *testing.T) {
	m := checkModel(t, fd.DBRR, 5, 2, 9, true)
	a := checker.Search[*RoundState](m, checker.Options{Workers: 1})
	b := checker.Search[*RoundState](m, checker.Options{Workers: 1, Symmetry: true})
	t.Logf("DBRR n=5 F=2: %d states, %d with symmetry", a.States, b.States)
	if !a.Complete || !b.Complete || len(a.Violations) != len(b.Violations) || !b.Symmetry || b.States*3 > a.States {
		t.Errorf("without: %d states %d violations; with: %d states %d violations", a.States, len(a.Violations), b.States, len(b.Violations))
	}
}

// TestRunRoundMatchesSimulate: the checker's round is Simulate's.
func TestRunRoundMatchesSimulate(t *testing.T) {
	for _, v := range []fd.Variant{fd.RR, fd.BRR, fd.DBRR} {
		cfg := fd.Config{N: 5, Variant: v, TGossip: RoundTicks, Cleanup: 3, Ping: true, PingTimeout: RoundTicks / 2}
		m, err := NewCheckModel(CheckConfig{Node: cfg, Crashes: 2, CrashWindow: 10, Horizon: 20, DetectBound: 20})
		if err != nil {
			t.Fatal(err)
		}
		s := m.Init()[0]
		crash := map[core.Rank]uint64{}
		for g := 0; g < 20; g++ {
			if g == 3 || g == 6 {
				x := int32(g % 5)
				crash[core.Rank(x)] = uint64(g+1) * RoundTicks
				s, err = m.Apply(s, checker.Action{Kind: actCrash, P: x})
				if err != nil {
					t.Fatal(err)
				}
			}
			if s, err = m.Apply(s, checker.Action{Kind: actRound}); err != nil {
				t.Fatal(err)
			}
		}
		r, err := Simulate(SimConfig{Node: cfg, DelayMin: 1, DelayMax: 1, Crash: crash, Rounds: 20})
		if err != nil {
			t.Fatal(err)
		}
		for h := range 5 {
			// Simulate's horizon stops at round 20's timers, before its
			// deliveries; compare the crashed hosts' frozen states and the
			// live hosts' rounds and declarations.
			a, b := s.Nodes[h], r.Nodes[h]
			if a.Round() != b.Round() || !a.Declared().Equal(b.Declared()) {
				t.Errorf("%v host %d: check %v, simulate %v", v, h, a, b)
			}
		}
	}
}

// TestCheckedMinCleanup: the checker's answer for the paper's example is
// "no T_cleanup" and, where every crash falls after the warm-up anyway
// (one crash, DBRR n = 4), it equals the round-model sweep.
func TestCheckedMinCleanup(t *testing.T) {
	if c, _, err := CheckedMinCleanup(fd.BRR, 4, 2, 12); err != nil || c != Unbounded {
		t.Errorf("BRR n=4 k=2: %d, %v; want unbounded", c, err)
	}
	c, _, err := CheckedMinCleanup(fd.DBRR, 4, 1, 12)
	r, _ := MinCleanup(fd.DBRR, 4, 1, 0)
	if err != nil || c != r.MinCleanup {
		t.Errorf("DBRR n=4 k=1: checker %d (%v), sweep %d", c, err, r.MinCleanup)
	}
}
