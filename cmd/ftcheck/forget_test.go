package main

import "testing"

// TestCheckForgetCrashed: --forget-crashed keeps the verdict with fewer
// states (era, correction), is recorded in a counterexample's trace so
// that replay rebuilds the forgetting model and reproduces the violation,
// and a model without Forget (twophase, not a message-passing model)
// refuses it with exit status 2.
func TestCheckForgetCrashed(t *testing.T) {
	checkReductionFlag(t, reductionFlagCase{
		flag: "--forget-crashed",
		fewer: [][]string{
			{"era", "--n", "3", "--crashes", "2", "--dfs"},
			{"correction", "--P", "3", "--timing", "rounds", "--faults", "2", "--dfs", "--por"},
		},
		mutant:    []string{"era", "--n", "4", "--crashes", "2", "--mutant", "early-root-decision", "--dfs"},
		traceGlob: "era-*early-root-decision-*.json",
		refuse:    []string{"twophase"},
		refuseMsg: "twophase does not forget crashed processes",
	})
}
