package abcast_test

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/models/abcast"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// BenchmarkCheckBB: the complete search of `ftcheck check abcast
// --variant bb --core 3 --messages 1 --crashes 1` (19,269 states).
func BenchmarkCheckBB(b *testing.B) {
	r := modeltest.Build(b, "abcast", "--variant", "bb", "--core", "3", "--messages", "1", "--crashes", "1")
	for b.Loop() {
		if res := r.BFS(checker.Options{}); !res.Complete {
			b.Fatal("incomplete")
		}
	}
}

// BenchmarkRoundConsensus128: one simulated round of the consensus
// variant at 128 nodes (126 members, 16,379 messages).
func BenchmarkRoundConsensus128(b *testing.B) {
	for b.Loop() {
		if _, err := (abcast.Round{Variant: ab.ConsensusBased, N: 128, Unstable: 2, Seed: 1, Tx: 1, Handle: 0.1}).Simulate(); err != nil {
			b.Fatal(err)
		}
	}
}
