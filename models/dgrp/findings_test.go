package dgrp

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	dg "github.com/ftkernel/ftkernel/statemachine/dgrp"
)

// walkFinds runs seeded random walks (20,000 of up to 400 steps, seed 1)
// of the one outcome vector scenario, and fails unless prop is violated
// by a walk of the pinned length.
func walkFinds(t *testing.T, scenario [][]dg.Slow, prop string, steps int) {
	t.Helper()
	m, err := NewModel(Params{N: 3, Zeta: 1, Rounds: 3, Imperfect: true, Scenario: scenario})
	if err != nil {
		t.Fatal(err)
	}
	w := checker.Walk[*env.World](m, checker.WalkOptions{Walks: 20000, MaxSteps: 400, Seed: 1, Properties: []string{prop}})
	if w.Violation == nil {
		t.Fatalf("%s holds over the walks", prop)
	}
	t.Logf("%s violated by a walk of %d steps: %s", prop, len(w.Violation.Steps), w.Violation.Violation.Message)
	if len(w.Violation.Steps) != steps {
		t.Errorf("%d steps, pinned %d", len(w.Violation.Steps), steps)
	}
}

// TestMembershipFailsWithReadmission: P-DGRP-1 fails once re-admission
// runs. In round 2 p2 fails p1 and p1 fails p0. p0 takes p2's report
// first, so p1's report on p0 comes from a non-member and is ignored
// (AMBIGUOUS-2(b)); p0's own round-2 test of p1 passes (ζ = 1), so p0, the
// leader, has p1 re-admitted by Paxos before its barrier: p0 reads
// {p0, p1, p2} at the barrier of round 2, though p1 tested p0
// non-recommended in that round. (tla/dgrp.qnt finds the same: ci/quint.sh
// "dgrp3 membership".)
func TestMembershipFailsWithReadmission(t *testing.T) {
	walkFinds(t, [][]dg.Slow{nil, {{Round: 2, Peer: 0}}, {{Round: 2, Peer: 1}}}, Membership, 43)
}

// TestTwoLeadersDecideTwice: the leader drops duplicate requests, but two
// processes can each be the lowest member of their own view. p0 fails p1
// in round 2 and p2 fails p0 in round 3: p2 removes p0 and leads its view
// while p0 still leads its own, both see p1 pass (ζ = 1), both propose
// "readmit p1@1", and Paxos decides it twice (the second decision changes
// no counter: it carries the counter it is about, AMBIGUOUS-6).
// (tla/dgrp.qnt: ci/quint.sh "dgrp3 oneDecision".)
func TestTwoLeadersDecideTwice(t *testing.T) {
	walkFinds(t, [][]dg.Slow{{{Round: 2, Peer: 1}}, nil, {{Round: 3, Peer: 0}}}, OneDecision, 54)
}
