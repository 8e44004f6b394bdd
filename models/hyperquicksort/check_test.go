package hyperquicksort

import (
	"os"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	hq "github.com/ftkernel/ftkernel/statemachine/hyperquicksort"
)

func set(rs ...core.Rank) core.RankSet {
	var s core.RankSet
	for _, r := range rs {
		s.Add(r)
	}
	return s
}

func search(t *testing.T, p Params, props ...string) *checker.Result {
	t.Helper()
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	return checker.Search[*World](m, checker.Options{Properties: props, MaxStates: 5_000_000})
}

// TestP_DGRP_4: with any non-recommended set of up to n − 1 processes at
// every sorting round, chosen by the environment, the output is sorted and
// a permutation of the input, and every run ends (whole state graph).
func TestP_DGRP_4(t *testing.T) {
	cases := []struct {
		p      Params
		states int64
	}{
		{Params{N: 2, MaxNonRec: 1, Values: 3, Inputs: 4}, 68},
		{Params{N: 4, MaxNonRec: 3, Values: 2, Inputs: 2}, 8948},
	}
	if os.Getenv("FTKERNEL_LONG") == "1" {
		cases = append(cases, struct {
			p      Params
			states int64
		}{Params{N: 8, MaxNonRec: 1, Values: 2, Inputs: 2}, 3759970})
	}
	for _, c := range cases {
		res := search(t, c.p)
		t.Logf("%+v: %d states, complete %v", c.p, res.States, res.Complete)
		if !res.Complete || len(res.Violations) > 0 || res.Err != nil {
			t.Fatalf("%+v: complete %v, violations %v, err %v", c.p, res.Complete, res.Violations, res.Err)
		}
		if res.States != c.states {
			t.Errorf("%+v: %d states, pinned %d", c.p, res.States, c.states)
		}
	}
}

// TestULFMLosesFailedLists: the ULFM baseline (failed processes excluded
// for good, no shared store) ends sorted, holding the input less exactly
// what the failed processes held (every barrier's agreement stabilizing,
// or the search reports an error); asked for, permutation fails at once: one failure before the first
// round loses that process's list.
func TestULFMLosesFailedLists(t *testing.T) {
	p := Params{N: 4, MaxNonRec: 3, Values: 2, Inputs: 2, Baseline: ULFM}
	res := search(t, p)
	if !res.Complete || len(res.Violations) > 0 || res.Err != nil {
		t.Fatalf("complete %v, violations %v, err %v", res.Complete, res.Violations, res.Err)
	}
	if res.States != 2308 {
		t.Errorf("%d states, pinned 2308", res.States)
	}
	res = search(t, p, Permutation)
	if len(res.Violations) != 1 || len(res.Violations[0].Steps) != 6 {
		t.Fatalf("permutation: violations %v, want one of 6 steps", res.Violations)
	}
	t.Log(res.Violations[0].Violation.Message)
}

// TestMutantsCaught: each mutant breaks its property, with a shortest
// counterexample of the pinned length (n = 4, K = 3).
func TestMutantsCaught(t *testing.T) {
	for _, c := range []struct {
		mut   mutant.Name
		prop  string
		steps int
	}{
		{hq.MutantPartnerXor, Terminates, 3},
		{hq.MutantSkipStore, Permutation, 6},
		{hq.MutantLocalPivot, Sorted, 6},
		{MutantULFMReadsStore, LosesFailed, 6},
	} {
		p := DefaultCheck
		p.Mutant = c.mut
		if c.mut == MutantULFMReadsStore {
			p.Baseline = ULFM
		}
		res := search(t, p, c.prop)
		if len(res.Violations) != 1 || res.Violations[0].Violation.Property != c.prop {
			t.Fatalf("%s: violations %v, want %s", c.mut, res.Violations, c.prop)
		}
		if got := len(res.Violations[0].Steps); got != c.steps {
			t.Errorf("%s: counterexample of %d steps, pinned %d", c.mut, got, c.steps)
		}
		t.Logf("%s: %s in %d steps: %s", c.mut, c.prop, len(res.Violations[0].Steps), res.Violations[0].Violation.Message)
	}
}

// TestBadParams: out-of-range parameters are one-line errors.
func TestBadParams(t *testing.T) {
	for _, p := range []Params{
		{N: 6, MaxNonRec: 1, Values: 1, Inputs: 1},
		{N: 4, MaxNonRec: 4, Values: 1, Inputs: 1},
		{N: 4, MaxNonRec: 1, Values: 0, Inputs: 1},
		{N: 4, MaxNonRec: 1, Values: 1, Inputs: 1, Mutant: "nope"},
		{N: 4, MaxNonRec: 1, Values: 1, Inputs: 1, Baseline: ULFM, Schedule: []core.RankSet{set(1), set(2)}},
	} {
		if _, err := NewModel(p); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}
