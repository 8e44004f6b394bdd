package gossipfd

import "testing"

// Each mutant changes the behaviour of the machines in a run where the
// correct protocol is right.

func TestMutantBRROffset2rSuspectsInFailureFreeRuns(t *testing.T) {
	for _, m := range []bool{false, true} {
		cfg := &Config{N: 4, Variant: BRR, TGossip: 4, Cleanup: 4}
		if m {
			cfg.Mutant = MutantBRROffset2r
		}
		w := newWorld(t, cfg)
		w.rounds(30)
		got := len(w.declarations[2]) > 0
		if got != m {
			t.Errorf("mutant=%v: node 2 declared %v", m, w.declarations[2])
		}
	}
}

func TestMutantDBRRSameDirectionIsolatesLikeBRR(t *testing.T) {
	w := e1(t, &Config{N: 4, Variant: DBRR, TGossip: 4, Cleanup: 4, Mutant: MutantDBRRSameDirection})
	if !w.nodes[2].Declared().Has(3) {
		t.Errorf("node 2 declared %v, want the false declaration of node 3 (correct DBRR: none, TestDBRRAndRRContrast)", w.nodes[2].Declared())
	}
}

// A crashed host's entry bounces between stale values, each rise counting
// as an increase: the crash is never detected (BRR and DBRR, n = 8).
func TestMutantMergeLastReceivedBreaksCompleteness(t *testing.T) {
	for _, v := range []Variant{BRR, DBRR} {
		for _, m := range []bool{false, true} {
			C, _ := PaperCleanup(v, 8, CleanupMargin)
			cfg := &Config{N: 8, Variant: v, TGossip: 4, Cleanup: uint64(C)}
			if m {
				cfg.Mutant = MutantMergeLastReceived
			}
			w := newWorld(t, cfg)
			w.rounds(10)
			w.dead[5] = true
			w.rounds(40)
			declared := 0
			for s := range 8 {
				if w.nodes[s].Declared().Has(5) {
					declared++
				}
			}
			if m && declared == 7 || !m && declared != 7 {
				t.Errorf("%v mutant=%v: %d of 7 live hosts declared the crashed host", v, m, declared)
			}
		}
	}
}

func TestMutantCleanupGESuspectsOneRoundEarly(t *testing.T) {
	cfg := &Config{N: 2, Variant: BRR, TGossip: 2, Cleanup: 3, Mutant: MutantCleanupGE}
	w := newWorld(t, cfg)
	w.dead[1] = true
	w.rounds(6)
	if g, ok := w.suspectedBy(0, 1); !ok || g != 3 {
		t.Errorf("suspected in round %d (%v), want 3 (correct: 4, TestSuspicionAfterCleanup)", g, ok)
	}
}

func TestMutantPingNeverAnswersDeclaresLiveHost(t *testing.T) {
	w := e1(t, &Config{N: 4, Variant: BRR, TGossip: 4, Cleanup: 4, Ping: true, PingTimeout: 3, Mutant: MutantPingNeverAnswers})
	if !w.nodes[2].Declared().Has(3) {
		t.Errorf("node 2 declared %v, want node 3 (correct: never, TestBRRFalseSuspicionPingPhase)", w.nodes[2].Declared())
	}
}

// The cleanup check never fires: a crashed host is never suspected nor
// declared, where the correct detector declares it at every live host.
func TestMutantNeverSuspectNeverDetects(t *testing.T) {
	for _, m := range []bool{false, true} {
		cfg := &Config{N: 4, Variant: DBRR, TGossip: 4, Cleanup: 6, Ping: true, PingTimeout: 3}
		if m {
			cfg.Mutant = MutantNeverSuspect
		}
		w := newWorld(t, cfg)
		w.rounds(4)
		w.dead[1] = true
		w.rounds(20)
		declared := 0
		for _, s := range []int{0, 2, 3} {
			if w.nodes[s].Declared().Has(1) {
				declared++
			}
		}
		if m && declared != 0 || !m && declared != 3 {
			t.Errorf("mutant=%v: %d of 3 live hosts declared the crashed host", m, declared)
		}
	}
}

func TestMutantsListed(t *testing.T) {
	for _, m := range Mutants {
		c := Config{N: 3, Variant: BRR, TGossip: 2, Cleanup: 1, Mutant: m}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
	if len(Mutants) != 9 {
		t.Errorf("%d mutants", len(Mutants))
	}
}
