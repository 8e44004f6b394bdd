package dgrp

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	dg "github.com/ftkernel/ftkernel/statemachine/dgrp"
)

func run(t *testing.T, p Params, props ...string) *checker.Result {
	t.Helper()
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	return checker.BFS[*env.World](m, checker.Options{Properties: props, MaxStates: 200_000})
}

// TestExhaustive: one test round of three processes, every outcome of at
// most one slow process (perfect tests): every property holds over the
// whole state graph, barrier agreement included. (Imperfect tests at the
// same bound pass 200,000 states without completing.)
func TestExhaustive(t *testing.T) {
	for _, c := range []struct {
		p      Params
		states int64
	}{
		{Params{N: 3, Zeta: 1, Rounds: 1, Imperfect: false, Slow: 1}, 1308},
	} {
		all := []string{Membership, Divergent, Readmission, RemovalByTest, LeaderLowest, OneConsensus, BarrierAgreement}
		res := run(t, c.p, all...)
		t.Logf("%+v: %d states, complete %v, %v", c.p, res.States, res.Complete, res.Stop)
		if !res.Complete || len(res.Violations) > 0 {
			t.Fatalf("%+v: complete %v, violations %d", c.p, res.Complete, len(res.Violations))
		}
		if c.states != 0 && res.States != c.states {
			t.Errorf("%+v: %d states, pinned %d", c.p, res.States, c.states)
		}
	}
}

// TestMutantsCaught: each mutant is caught by its property, with a
// shortest counterexample of the pinned length.
func TestMutantsCaught(t *testing.T) {
	for _, c := range []struct {
		mut   mutant.Name
		prop  string
		p     Params
		steps int
	}{
		{dg.MutantNoEventsBroadcast, Membership, Params{N: 3, Zeta: 1, Rounds: 1, Imperfect: true, Slow: 1}, 15},
		{dg.MutantRemoveOnlyIfAll, Divergent, Params{N: 3, Zeta: 1, Rounds: 1, Imperfect: true, Slow: 1}, 15},
		{dg.MutantReadmitWithoutConsensus, Readmission, Params{N: 3, Zeta: 1, Rounds: 2, Imperfect: false, Slow: 1}, 15},
		{dg.MutantRequesterProposes, LeaderLowest, Params{N: 3, Zeta: 1, Rounds: 2, Imperfect: false, Slow: 1}, 15},
		{dg.MutantKeepDuplicates, OneConsensus, Params{N: 3, Zeta: 1, Rounds: 2, Imperfect: false, Slow: 1}, 0},
	} {
		p := c.p
		p.Mutant = c.mut
		res := run(t, p, c.prop)
		if len(res.Violations) == 0 {
			t.Errorf("%s: %s not violated (%d states, %v)", c.mut, c.prop, res.States, res.Stop)
			continue
		}
		v := res.Violations[0]
		t.Logf("%s: %s violated in %d steps (%d states): %s", c.mut, c.prop, len(v.Steps), res.States, v.Violation.Message)
		if c.steps != 0 && len(v.Steps) != c.steps {
			t.Errorf("%s: %d steps, pinned %d", c.mut, len(v.Steps), c.steps)
		}
	}
}

// TestMutantsCaughtByWalks: the mutants whose counterexamples lie behind a
// whole Paxos instance (a decision applied, then a second request or a
// merged counter) are caught by seeded random walks (3,000 walks of up to
// 300 steps, seed 1): the walk's length is pinned.
func TestMutantsCaughtByWalks(t *testing.T) {
	for _, c := range []struct {
		mut   mutant.Name
		prop  string
		p     Params
		steps int
	}{
		{dg.MutantDoubleIncrement, RemovalByTest, Params{N: 3, Zeta: 1, Rounds: 3, Imperfect: false, Slow: 1}, 48},
	} {
		p := c.p
		p.Mutant = c.mut
		m, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		w := checker.Walk[*env.World](m, checker.WalkOptions{Walks: 3000, MaxSteps: 300, Seed: 1, Properties: []string{c.prop}})
		if w.Violation == nil {
			t.Errorf("%s: %s not violated by the walks", c.mut, c.prop)
			continue
		}
		t.Logf("%s: %s violated by a walk of %d steps: %s", c.mut, c.prop, len(w.Violation.Steps), w.Violation.Violation.Message)
		if c.steps != 0 && len(w.Violation.Steps) != c.steps {
			t.Errorf("%s: %d steps, pinned %d", c.mut, len(w.Violation.Steps), c.steps)
		}
	}
}

// TestBarrierAgreementFails answers AMBIGUOUS-5 with a run: members can
// read different views at one barrier. Four processes, one round,
// imperfect tests, two slow ones (p0's test of p1, p1's test of p2): p0
// removes p1 first and then ignores p1's report on p2 (it comes from a
// non-member), while p3 takes p1's report before p0's and removes p2 too.
func TestBarrierAgreementFails(t *testing.T) {
	p := Params{N: 4, Zeta: 2, Rounds: 1, Imperfect: true,
		Scenario: [][]dg.Slow{{{Round: 1, Peer: 1}}, {{Round: 1, Peer: 2}}}}
	res := run(t, p, BarrierAgreement)
	if len(res.Violations) == 0 {
		t.Fatalf("barrier agreement holds over %d states (%v)", res.States, res.Stop)
	}
	v := res.Violations[0]
	t.Logf("violated in %d steps (%d states): %s", len(v.Steps), res.States, v.Violation.Message)
	if len(v.Steps) != 24 {
		t.Errorf("%d steps, pinned 24", len(v.Steps))
	}
	for _, s := range v.Steps {
		t.Log(s.Text)
	}
}

// TestMutantsCaughtOverOracle: over the smaller consensus model, one bound
// with re-admission (`ftcheck check dgrp --rounds 2 --zeta 1 --consensus
// oracle --mutants`: N = 3, ζ = 1, two rounds, imperfect tests, one slow)
// holds for the protocol (TestDocsCounts) and catches every mutant by
// breadth-first search, with the shortest counterexample of the pinned
// length.
func TestMutantsCaughtOverOracle(t *testing.T) {
	for _, c := range []struct {
		mut   mutant.Name
		prop  string
		steps int
	}{
		{dg.MutantReadmitWithoutConsensus, Readmission, 7},
		{dg.MutantRemoveOnlyIfAll, Membership, 15},
		{dg.MutantNoEventsBroadcast, Membership, 15},
		{dg.MutantDoubleIncrement, RemovalByTest, 20},
		{dg.MutantRequesterProposes, LeaderLowest, 7},
		{dg.MutantKeepDuplicates, OneConsensus, 17},
	} {
		p := Params{N: 3, Zeta: 1, Rounds: 2, Imperfect: true, Slow: 1, Consensus: ConsensusOracle, Mutant: c.mut}
		res := run(t, p, c.prop)
		if len(res.Violations) == 0 {
			t.Errorf("%s: %s not violated (%d states, %v)", c.mut, c.prop, res.States, res.Stop)
			continue
		}
		if n := len(res.Violations[0].Steps); n != c.steps {
			t.Errorf("%s: %s violated in %d steps, pinned %d", c.mut, c.prop, n, c.steps)
		}
	}
}
