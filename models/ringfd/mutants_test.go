package ringfd

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/internal/mutant"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// TestMutantsCaught pins each mutant to a property that catches it in a
// small run, and checks that the correct protocol passes the same run.
func TestMutantsCaught(t *testing.T) {
	tests := []struct {
		m    mutant.Name
		fail []int
		prop string
	}{
		{fd.MutantNoMending, []int{2, 3}, PropCompleteness},
		{fd.MutantNoMending, []int{3}, PropRingRepair},
		{fd.MutantObserveSuccessor, nil, PropAccuracy},
		{fd.MutantMendShortTimeout, []int{3}, PropAccuracy},
		{fd.MutantForwardAlways, []int{3}, PropForwardOnce},
		{fd.MutantForwardNever, []int{3}, PropCompleteness},
		{fd.MutantForwardNever, []int{3}, PropAgreement},
		{fd.MutantBMGPositiveOnly, []int{3}, PropForwardOnce},
		{fd.MutantHostedNotReported, []int{3}, PropCompleteness},
	}
	caught := map[mutant.Name]bool{}
	for _, tc := range tests {
		p := Params{N: 8, Procs: 1, Fail: tc.fail, Seed: 1, DelayMin: 1, DelayMax: 3}
		ok, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(ok.Violations) != 0 {
			t.Fatalf("correct protocol, fail %v: %v", tc.fail, ok.Violations)
		}
		p.Mutant = tc.m
		bad, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, v := range bad.Violations {
			found = found || strings.HasPrefix(v, tc.prop+":")
		}
		if !found {
			t.Errorf("%s, fail %v: %s not violated; violations %v", tc.m, tc.fail, tc.prop, bad.Violations)
		}
		caught[tc.m] = true
	}
	for _, m := range fd.Mutants {
		if !caught[m] {
			t.Errorf("mutant %s is not tested", m)
		}
	}
}
