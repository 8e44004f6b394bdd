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
		{dg.MutantReadmitWithoutConsensus, Readmission, Params{N: 3, Zeta: 1, Rounds: 2, Imperfect: false, Slow: 1}, 15},
		{dg.MutantRequesterProposes, LeaderLowest, Params{N: 3, Zeta: 1, Rounds: 2, Imperfect: false, Slow: 1}, 15},
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
