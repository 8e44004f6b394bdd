package dgrp

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	dg "github.com/ftkernel/ftkernel/statemachine/dgrp"
)

// walkFinds runs seeded random walks (20,000 of up to 400 steps, seed 1)
// of the one outcome vector scenario (N = 3, ζ = 1, imperfect tests), and
// fails unless prop is violated by a walk of the pinned length.
func walkFinds(t *testing.T, rounds int, scenario [][]dg.Slow, prop string, steps int) {
	t.Helper()
	m, err := NewModel(Params{N: 3, Zeta: 1, Rounds: rounds, Imperfect: true, Scenario: scenario})
	if err != nil {
		t.Fatal(err)
	}
	w := checker.Walk[*env.World](m, checker.WalkOptions{Walks: 20000, MaxSteps: 400, Seed: 1, Properties: []string{prop}})
	if w.Violation == nil {
		t.Fatalf("%s holds over the walks", prop)
	}
	t.Logf("%s violated by a walk of %d steps: %s", prop, len(w.Violation.Steps), w.Violation.Violation.Message)
	if steps != 0 && len(w.Violation.Steps) != steps {
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
	walkFinds(t, 3, [][]dg.Slow{nil, {{Round: 2, Peer: 0}}, {{Round: 2, Peer: 1}}}, Membership, 43)
}

// TestTwoLeadersDecideTwice: the leader drops duplicate requests, but two
// processes can each be the lowest member of their own view. p0 fails p1
// in round 2 and p2 fails p0 in round 3: p2 removes p0 and leads its view
// while p0 still leads its own, both see p1 pass (ζ = 1), both propose
// "readmit p1@1", and Paxos decides it twice (the second decision changes
// no counter: it carries the counter it is about, AMBIGUOUS-6).
// (tla/dgrp.qnt: ci/quint.sh "dgrp3 oneDecision".)
func TestTwoLeadersDecideTwice(t *testing.T) {
	walkFinds(t, 3, [][]dg.Slow{{{Round: 2, Peer: 1}}, nil, {{Round: 3, Peer: 0}}}, OneDecision, 54)
}

// TestDivergentFailsWithReadmission: P-DGRP-2 fails once re-admission
// runs, even within one round. In round 1 p0 fails p1 and p1 fails p2. p0
// ignores p1's report on p2 (p1 is out of its view by then). p2 tests p1
// after p0's report arrived: p1 is out, the test passes, ζ = 1, so p2 asks
// p0, the leader, and Paxos re-admits p1 before p0's barrier. p0 then reads
// {p0, p1, p2}: p1, a member again, failed p2 in round 1 and p0 passed it.
func TestDivergentFailsWithReadmission(t *testing.T) {
	walkFinds(t, 1, [][]dg.Slow{{{Round: 1, Peer: 1}}, {{Round: 1, Peer: 2}}, nil}, Divergent, 34)
}

// TestShortestFindingsOverOracle: over the smaller consensus model
// (--consensus oracle) breadth-first search completes far enough to give
// the shortest counterexamples of both findings: `ftcheck check dgrp
// --rounds 1 --zeta 1 --slow 2 --consensus oracle` violates membership and
// divergent-tests after 19 steps.
func TestShortestFindingsOverOracle(t *testing.T) {
	m, err := NewModel(Params{N: 3, Zeta: 1, Rounds: 1, Imperfect: true, Slow: 2, Consensus: ConsensusOracle})
	if err != nil {
		t.Fatal(err)
	}
	for _, prop := range []string{Membership, Divergent} {
		res := checker.BFS[*env.World](m, checker.Options{Properties: []string{prop}})
		if len(res.Violations) == 0 {
			t.Errorf("%s holds (%d states)", prop, res.States)
			continue
		}
		v := res.Violations[0]
		t.Logf("%s violated in %d steps: %s", prop, len(v.Steps), v.Violation.Message)
		if len(v.Steps) != 19 {
			t.Errorf("%s: %d steps, pinned 19", prop, len(v.Steps))
		}
	}
}
