package replica

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// mutantCases pins, for every mutant, the smallest model where BFS catches
// it, the property that fails first and the length of the shortest
// counterexample (computed by the searches below, not by hand).
var mutantCases = []struct {
	mutant   string
	p        Params
	property string
	steps    int
}{
	// Every replica sends: 8 DATA and 4 COMMIT instead of 4 and 2.
	{string(sm.MutantNonMasterSends), Params{Program: "ping-pong", Procs: 2, Degree: 2, ReplicateRank0: true}, SendCost, 24},
	// The master commits, then crashes before its DATA: its replica skips
	// the send (logged) and nobody ever sends it.
	{string(sm.MutantCommitBeforeSend), Params{Program: "ping-pong", Procs: 2, Degree: 2, ReplicateRank0: true, Crashes: 1}, Validity, 9},
	// A re-sent duplicate is queued and never delivered (in-sequence
	// delivery keeps the deliveries right; the queue is not drained).
	{string(sm.MutantHistoryNotConsulted), Params{Program: "ping-pong", Procs: 2, Degree: 2, ReplicateRank0: true, Crashes: 1}, QueueDrained, 15},
	// The new master keeps its backup: the message is never sent.
	{string(sm.MutantNoBackupResend), Params{Program: "ping-pong", Procs: 2, Degree: 2, ReplicateRank0: true, Crashes: 1}, Validity, 7},
	// Unordered channels: (0,0,2,9,1) arrives and is delivered first.
	{string(sm.MutantArrivalOrderDelivery), Params{Program: "mid-example", Procs: 3, Degree: 2}, Equivalence, 6},
	// Both sends of §4.2's example get (0,0,2,9,0): the second is
	// discarded as a duplicate and P_2 waits forever.
	{string(sm.MutantMIDWithoutTime), Params{Program: "mid-example", Procs: 3, Degree: 2, Network: env.FIFO}, Validity, 10},
	// The literal per-replica clock: the new master's re-send overtakes
	// the old master's last DATA (see sm.sendStep).
	{string(sm.MutantReplicaClock), Params{Program: "mid-example", Procs: 3, Degrees: []int{2, 1, 2}, Network: env.FIFO, Crashes: 1}, Equivalence, 10},
	// A duplicate arriving while the original is queued is queued too.
	{string(sm.MutantHistoryAtDelivery), Params{Program: "ping-pong", Procs: 2, Degree: 2, ReplicateRank0: true, Crashes: 1}, QueueDrained, 15},
	// Three sender replicas; the old master's commit reaches one of them:
	// the other keeps the entry in its backup.
	{string(sm.MutantNoLogRecommit), Params{Program: "gather-sum", Procs: 2, Degrees: []int{3, 1}, Crashes: 1}, BackupDrained, 11},
	// The old master's DATA reached one receiver; the new master's re-send
	// carries another MID, which the other receiver delivers.
	{string(sm.MutantResendOwnMID), Params{Program: "gather-sum", Procs: 2, Degree: 2, ReplicateRank0: true, Crashes: 1}, Agreement, 12},
	// Both copies of a re-sent message are queued at an unstarted
	// receiver, which then extracts the smaller MID twice.
	{string(sm.MutantLiteralReception), Params{Program: "ping-pong", Procs: 2, Rounds: 2, Degrees: []int{2, 1}, Network: env.FIFO, Crashes: 1}, Integrity, 8},
	// The receiver's replicas take the two values in opposite orders.
	{string(sm.MutantRecvIgnoresSource), Params{Program: "gather-sum", Procs: 3, Degree: 2}, TotalOrder, 10},
	// The tag-1 message, sent second, is delivered first (its MID is
	// smaller): 2 − 1 instead of MPI's 1 − 2.
	{string(sm.MutantAnyTagMIDOrder), Params{Program: "any-tag-diff", Procs: 2, Degree: 2, Network: env.FIFO}, Equivalence, 6},
	// P0's replica backs up the task for P2 over the one for P1 (one key
	// without the destination); the master crashes before its DATA to P1
	// and the new master never sends it.
	{string(sm.MutantMIDOrderIgnoresDst), Params{Program: "master-worker", Procs: 3, Degrees: []int{2, 1, 1}, Network: env.FIFO, Crashes: 1}, Validity, 9},
}

// TestMutantsCaught: each mutant violates its property with a shortest
// counterexample of the pinned length, and the correct protocol passes the
// same model.
func TestMutantsCaught(t *testing.T) {
	for _, c := range mutantCases {
		t.Run(c.mutant, func(t *testing.T) {
			p := c.p
			p.Mutant = mutantName(c.mutant)
			res := search(t, p, checker.Options{})
			if len(res.Violations) == 0 {
				t.Fatalf("mutant survived: %d states", res.States)
			}
			v := res.Violations[0]
			t.Logf("%s: %s after %d steps (%d states): %s", c.mutant, v.Violation.Property, len(v.Steps), res.States, v.Violation.Message)
			if v.Violation.Property != c.property || len(v.Steps) != c.steps {
				t.Fatalf("caught by %s after %d steps, want %s after %d", v.Violation.Property, len(v.Steps), c.property, c.steps)
			}
			p.Mutant = ""
			if res := search(t, p, checker.Options{}); len(res.Violations) > 0 || !res.Complete {
				t.Fatalf("the correct protocol fails the same model: %v", res.Violations[0].Violation)
			}
		})
	}
}

// TestEveryMutantHasACase: the table covers sm.Mutants.
func TestEveryMutantHasACase(t *testing.T) {
	for _, m := range sm.Mutants {
		found := false
		for _, c := range mutantCases {
			found = found || c.mutant == string(m)
		}
		if !found {
			t.Errorf("no case for mutant %s", m)
		}
	}
}
