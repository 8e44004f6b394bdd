package abcast_test

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/abcast"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// TestPersistentSoundness: with the model's may-still-send-to relation,
// depth-first search with persistent sets finds the same violated
// properties and quiescent worlds as the unreduced search, visits no more
// states, and its counterexamples replay (envtest.ComparePersistent), on
// small models of each variant, correct and with the mutants of its
// variant (batch-overlap's searches do not fit the bound).
func TestPersistentSoundness(t *testing.T) {
	for _, p := range []abcast.Params{
		{Variant: ab.UB, Core: 3, Messages: 1, Crashes: 1},
		{Variant: ab.BB, Core: 3, Messages: 1, Crashes: 1},
		{Variant: ab.ConsensusBased, Core: 2, Messages: 2, K: 2},
		{Variant: ab.ConsensusBased, Core: 2, Messages: 2, K: 3},
	} {
		muts := []mutant.Name{mutant.None, ab.MutantReuseNumber, ab.MutantDeliverOnPayload}
		if p.Variant == ab.ConsensusBased {
			muts = []mutant.Name{mutant.None, ab.MutantDeliverBeforeDecision, ab.MutantBatchArrivalOrder, ab.MutantWaitFullBatch}
		}
		for _, mut := range muts {
			p.Mutant = mut
			m, err := abcast.NewModel(p)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := envtest.ComparePersistent(m, 100_000)
			if err != nil {
				t.Fatalf("%s: %v", m.Name(), err)
			}
			t.Logf("%-70s states %6d → %6d {%s} por=%v", m.Name(), rep.States, rep.ReducedStates, rep.Violated, rep.POR)
		}
	}
}
