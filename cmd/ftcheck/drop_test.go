package main

import "testing"

// TestCheckDropAbsorbed: correction's --drop-absorbed keeps the verdict
// with fewer states, is recorded in a counterexample's trace so that replay
// rebuilds the dropping model and reproduces the violation, and a model
// without it (era: its nodes declare no absorbed messages) refuses the flag
// with exit status 2.
func TestCheckDropAbsorbed(t *testing.T) {
	checkReductionFlag(t, reductionFlagCase{
		flag:      "--drop-absorbed",
		fewer:     [][]string{{"correction", "--P", "3", "--faults", "1", "--dfs", "--por"}},
		mutant:    []string{"correction", "--P", "3", "--mutant", "redeliver-on-correction", "--dfs"},
		traceGlob: "correction-*redeliver-on-correction-*.json",
		refuse:    []string{"era"},
		refuseMsg: "drop-absorbed",
	})
}
