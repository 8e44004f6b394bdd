package replica

import (
	"os"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// TestStackHistorySavesEquivalence (FTKERNEL_LONG=1): random walks of the
// duplicate-sends model (DBRR n = 3, T_cleanup 2, Δ = 4, no ping, no
// crash). The correct protocol keeps equivalence, integrity, total order
// and drains its queue on every walk (20,000 walks, seed 1), and some
// walk makes duplicate sends; without the history table
// (MutantHistoryNotConsulted) a duplicate stays queued for ever
// (queue-drained, found at walk 385 of seed 1, FIFO).
func TestStackHistorySavesEquivalence(t *testing.T) {
	if os.Getenv("FTKERNEL_LONG") == "" {
		t.Skip("FTKERNEL_LONG=1")
	}
	s := StackParams{Variant: fd.DBRR, Cleanup: 2, TGossip: 4, MaxRounds: 10, Delta: 4}
	props := []string{Equivalence, Integrity, TotalOrder, QueueDrained, NoDuplicateSends}
	for _, mut := range []string{"", string(sm.MutantHistoryNotConsulted)} {
		m, err := NewStackModel(Params{Program: "ping-pong", Procs: 2, Degree: 2, Rounds: 3, Mutant: mutantName(mut), Network: env.FIFO}, s)
		if err != nil {
			t.Fatal(err)
		}
		res := checker.Walk(m.Model, checker.WalkOptions{Walks: 20000, MaxSteps: 2000, Seed: 1, Properties: props[:4]})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		dup := checker.Walk(m.Model, checker.WalkOptions{Walks: 20000, MaxSteps: 2000, Seed: 1, Properties: props[4:]})
		if dup.Violation == nil {
			t.Fatalf("mutant %q: no walk made duplicate sends: the model does not test the history", mut)
		}
		switch {
		case mut == "" && res.Violation != nil:
			t.Fatalf("correct protocol: %v after %d steps", res.Violation.Violation, len(res.Violation.Steps))
		case mut != "" && (res.Violation == nil || res.Violation.Violation.Property != QueueDrained):
			t.Fatalf("without the history: %d walks, violation %v, want queue-drained", res.Walks, res.Violation)
		}
		t.Logf("mutant %q: %d walks, %d steps, violation %v", mut, res.Walks, res.Steps, res.Violation != nil)
	}
}
