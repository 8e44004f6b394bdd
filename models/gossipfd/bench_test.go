package gossipfd

import (
	"testing"

	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// BenchmarkFDFailureTrial: 1000 Monte Carlo trials (draw and classify) of
// DBRR at n = 256.
func BenchmarkFDFailureTrial(b *testing.B) {
	for b.Loop() {
		if _, err := FDFailureMonteCarlo(fd.DBRR, 256, paperF, 1000, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundModel: 40 rounds of BRR over 64 hosts in the driver.
func BenchmarkRoundModel(b *testing.B) {
	for b.Loop() {
		if _, err := Simulate(SimConfig{Node: fd.Config{N: 64, Variant: fd.BRR, TGossip: RoundTicks, Cleanup: 12},
			DelayMin: 1, DelayMax: 1, Rounds: 40}); err != nil {
			b.Fatal(err)
		}
	}
}
