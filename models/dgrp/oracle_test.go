package dgrp

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	dg "github.com/ftkernel/ftkernel/statemachine/dgrp"
)

// projection is what the DGRP's properties read of a world, the consensus
// machines left out but their logs kept: per process its counters, round,
// views and tests of the last two rounds, requests, proposals,
// re-admissions and decided log.
func projection(w *env.World) string {
	s := ""
	for _, n := range nodes(w) {
		s += fmt.Sprint(n.Syndrome(), n.Round(), n.Done(), n.Requests(), n.Proposals(), n.Admitted(), n.Decided())
		for _, r := range []uint32{n.Round(), n.Round() - 1} {
			v, c, ok := n.ViewAt(r)
			f, fc, fok := n.Fails(r)
			s += fmt.Sprint(r, v, c, ok, f, fc, fok)
		}
		s += ";"
	}
	return s
}

// TestOracleGuard: Oracle (--consensus oracle) is a sound smaller model
// of Paxos for the DGRP. At N = 3, ζ = 1, two rounds, one slow process
// (perfect tests; the bound of docs/dgrp.md's complete check with
// re-admission), every DGRP projection that 3,000 seeded random walks of
// the Paxos model reach (up to 400 steps each) is one the complete
// exploration of the oracle model reaches, and the mutants whose
// counterexamples need a re-admission are caught over both.
func TestOracleGuard(t *testing.T) {
	p := Params{N: 3, Zeta: 1, Rounds: 2, Imperfect: false, Slow: 1}
	po := p
	po.Consensus = ConsensusOracle
	om, err := NewModel(po)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	visited := map[string]bool{}
	stack := om.Init()
	for _, w := range stack {
		visited[string(om.Encode(nil, w))] = true
	}
	for len(stack) > 0 {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		seen[projection(w)] = true
		for _, a := range om.Actions(w, nil) {
			next, err := om.Apply(w, a)
			if err != nil {
				t.Fatal(err)
			}
			if k := string(om.Encode(nil, next)); !visited[k] {
				visited[k] = true
				stack = append(stack, next)
			}
		}
	}
	if len(visited) != 79313 {
		t.Errorf("oracle model: %d states, pinned 79313 (ftcheck check dgrp --rounds 2 --imperfect=false --zeta 1 --consensus oracle)", len(visited))
	}
	pm, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 0))
	checked, readmitted := 0, 0
	for range 3000 {
		inits := pm.Init()
		w := inits[rng.IntN(len(inits))]
		for step := 0; step < 400 && !pm.Quiescent(w); step++ {
			as := pm.Actions(w, nil)
			if len(as) == 0 {
				break
			}
			if w, err = pm.Apply(w, as[rng.IntN(len(as))]); err != nil {
				t.Fatal(err)
			}
			pr := projection(w)
			checked++
			if !seen[pr] {
				t.Fatalf("a Paxos walk reaches a DGRP projection the oracle model does not: %s", pr)
			}
		}
		for _, n := range nodes(w) {
			if len(n.Admitted()) > 0 {
				readmitted++
				break
			}
		}
	}
	t.Logf("oracle: %d states, %d projections; Paxos walks: %d states checked, %d walks with a re-admission", len(visited), len(seen), checked, readmitted)
	if readmitted == 0 {
		t.Fatal("no walk re-admitted anyone: the guard compares nothing")
	}
	for _, c := range []struct {
		mut  mutant.Name
		prop string
	}{
		{dg.MutantReadmitWithoutConsensus, Readmission},
		{dg.MutantRequesterProposes, LeaderLowest},
		{dg.MutantKeepDuplicates, OneConsensus},
	} {
		for _, cons := range []string{ConsensusPaxos, ConsensusOracle} {
			q := p
			q.Mutant, q.Consensus = c.mut, cons
			m, err := NewModel(q)
			if err != nil {
				t.Fatal(err)
			}
			res := checker.BFS[*env.World](m, checker.Options{Properties: []string{c.prop}, MaxStates: 200_000})
			if len(res.Violations) == 0 {
				t.Errorf("%s over %s: %s not violated", c.mut, cons, c.prop)
				continue
			}
			t.Logf("%s over %s: %s violated in %d steps", c.mut, cons, c.prop, len(res.Violations[0].Steps))
		}
	}
}
