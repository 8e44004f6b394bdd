package fuzz

import (
	"testing"

	"pgregory.net/rapid"

	model "github.com/ftkernel/ftkernel/models/diagnosis"
	dg "github.com/ftkernel/ftkernel/statemachine/diagnosis"
)

// TestDiagnosisRapid: rapid draws VCube over a network (n = 2, 4, 8 or 16,
// Δ = 1 … 3 ticks, a crash budget of 0 … n − 1) and one run of its
// bounded-delay model, an enabled step at a time: crashes at any step,
// every delivery within its window, the round timers at their deadlines. On
// every step it checks accuracy (no live node diagnosed), completeness
// (every crashed node diagnosed by every live node within (log2 n)² + 1
// rounds of the round of its crash), the tester rule at each round's start
// and the timing rules; the run must end (every node stops after its last
// round and every message arrives).
func TestDiagnosisRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.SampledFrom([]int{2, 4, 8, 16}).Draw(rt, "n")
		delta := rapid.IntRange(1, 3).Draw(rt, "delta")
		crashes := rapid.IntRange(0, n-1).Draw(rt, "crashes")
		bound := model.DefaultDetectBound(n)
		m, err := model.NewEnvModel(model.EnvParams{
			Node:    dg.VCubeNodeConfig{N: n, Delta: uint64(delta), MaxRounds: uint64(bound + model.LogN(n) + 1)},
			Crashes: crashes, DetectBound: bound,
		})
		if err != nil {
			rt.Fatal(err)
		}
		walkRapid(rt, m, 50000, true)
	})
}
