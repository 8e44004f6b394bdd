package paxos_test

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
)

// TestFig21CompetingProposers is the thesis's Fig. 2.1 (§2.1.2): P0 and
// P1 both run phase 1 for instance 0 ("Se múltiplos proposers
// simultaneamente executam o procedimento anterior para a mesma
// instância, então nenhum proposer pode conseguir executar as duas fases").
// With --compete both call Lead at the start. The statemachine's
// coordinator yields to a higher ballot of a proposer it does not suspect
// (rules.go, recvNack), so one coordinator emerges and termination holds
// on every run; the duel only costs time: the worst run to termination is
// 7 ticks instead of 4 with a single coordinator. An endless duel is not a
// run of this model: ballots are part of the state and only grow, so a
// duel is an infinite path without a cycle, not a lasso, and it needs
// unboundedly many Lead calls where the schedule makes one per proposer.
func TestFig21CompetingProposers(t *testing.T) {
	single := mustHold(t, "--instances 1 --crashes 0", checker.Options{})
	duel := mustHold(t, "--instances 1 --crashes 0 --compete", checker.Options{})
	b1, b2 := termBound(t, single), termBound(t, duel)
	if b1.Time != 4 || b2.Time != 7 || b2.Steps <= b1.Steps {
		t.Errorf("termination within %v with one coordinator and %v with two competing proposers; docs: 4 and 7 time units", b1, b2)
	}
}

// TestTerminationBoundsUnderFaults: the worst time to termination, in
// ticks, once a loss, a duplicate or a crash is allowed (docs/paxos.md).
// With one command and 3 acceptors a single loss never costs the
// retransmission timeout: a quorum is 2 of 3, so the third acceptor's
// PROMISE or ACCEPTED stands in for the lost one; the worst run stays 4
// ticks, and only its step count grows.
func TestTerminationBoundsUnderFaults(t *testing.T) {
	for _, c := range []struct {
		args        string
		steps, time int
	}{
		{"--instances 1 --crashes 0", 24, 4},
		{"--instances 1 --crashes 0 --loss 1", 25, 4},
		{"--instances 1 --crashes 0 --dup 1", 28, 4},
		{"--instances 1", 29, 4},
	} {
		b := termBound(t, mustHold(t, c.args, checker.Options{}))
		if b.Steps != c.steps || b.Time != c.time {
			t.Errorf("%s: %v; docs: %d steps, %d time units", c.args, b, c.steps, c.time)
		}
	}
}

func termBound(t *testing.T, res *checker.Result) checker.Bound {
	t.Helper()
	for _, b := range res.Bounds {
		if b.Property == "termination" {
			return b
		}
	}
	t.Fatalf("no termination bound in %v", res.Bounds)
	return checker.Bound{}
}
