package abcast_test

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/abcast"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// persistentCases are the small models of each variant that the
// reductions' guards compare, with the mutants of the variant
// (batch-overlap's searches do not fit the bound).
func persistentCases() []abcast.Params {
	var out []abcast.Params
	for _, p := range []abcast.Params{
		{Variant: ab.UB, Core: 3, Messages: 1, Crashes: 1},
		{Variant: ab.BB, Core: 3, Messages: 1, Crashes: 1},
		{Variant: ab.UB, Core: 3, Messages: 1, Crashes: 1, Detector: env.DetectorNone},
		{Variant: ab.BB, Core: 3, Messages: 1, Crashes: 1, Detector: env.DetectorNone},
		{Variant: ab.UB, Core: 2, Messages: 2, Crashes: 1, Detector: env.DetectorNone},
		{Variant: ab.BB, Core: 2, Messages: 2, Crashes: 1, Detector: env.DetectorNone},
		{Variant: ab.ConsensusBased, Core: 2, Messages: 2, K: 2},
		{Variant: ab.ConsensusBased, Core: 2, Messages: 2, K: 3},
	} {
		muts := []mutant.Name{mutant.None, ab.MutantReuseNumber, ab.MutantDeliverOnPayload}
		if p.Variant == ab.ConsensusBased {
			muts = []mutant.Name{mutant.None, ab.MutantDeliverBeforeDecision, ab.MutantBatchArrivalOrder, ab.MutantWaitFullBatch}
		}
		for _, mut := range muts {
			p.Mutant = mut
			out = append(out, p)
		}
	}
	return out
}

// TestPersistentSoundness: with the model's may-still-send-to relation,
// depth-first search with persistent sets finds the same violated
// properties and quiescent worlds as the unreduced search, visits no more
// states, and its counterexamples replay (envtest.ComparePersistent), on
// persistentCases.
func TestPersistentSoundness(t *testing.T) {
	for _, p := range persistentCases() {
		m, err := abcast.NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := envtest.ComparePersistent(m, 100_000)
		if err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		t.Logf("%-80s states %6d → %6d {%s} por=%v", m.Name(), rep.States, rep.ReducedStates, rep.Violated, rep.POR)
	}
}

// TestMaySend: the relation allows every send a step makes and, once it
// rules a pair out, keeps it ruled out (modeltest.CheckMaySend), over
// every transition of persistentCases; for UB and BB it rules some pairs
// out (in the consensus variant p0 and the others talk until the end).
func TestMaySend(t *testing.T) {
	for _, p := range persistentCases() {
		m, err := abcast.NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		rep := modeltest.CheckMaySend(t, m, 100_000, abcast.MaySend)
		if rep.Ruled == 0 && p.Variant != ab.ConsensusBased {
			t.Errorf("%s: the relation ruled nothing out", m.Name())
		}
	}
}
