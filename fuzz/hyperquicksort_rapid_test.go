package fuzz

import (
	"testing"

	"pgregory.net/rapid"

	model "github.com/ftkernel/ftkernel/models/hyperquicksort"
)

// TestHyperquicksortRapid: rapid draws a Hyperquicksort (n = 2 … 16, 1 … 4
// values per process, an input vector, the DGRP or the ULFM baseline, at
// most K non-recommended or failed processes, K = 0 … n − 1) and one run
// of it, an enabled step at a time: the environment's non-recommended set
// of every sorting round, the processes' starts and every message's
// arrival in any order. At the end the output is sorted, is the input
// (DGRP) or the input less the failed processes' lists (ULFM), and the
// run ended every sorting round.
func TestHyperquicksortRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.SampledFrom([]int{2, 4, 8, 16}).Draw(rt, "n")
		p := model.Params{
			N: n, MaxNonRec: rapid.IntRange(0, n-1).Draw(rt, "k"), Values: rapid.IntRange(1, 4).Draw(rt, "values"),
			Inputs: 1, InputBase: rapid.IntRange(0, 50).Draw(rt, "input"),
			Baseline: model.Baseline(rapid.IntRange(0, 1).Draw(rt, "baseline")),
		}
		m, err := model.NewModel(p)
		if err != nil {
			rt.Fatal(err)
		}
		walkRapid(rt, m, 100000, true)
	})
}
