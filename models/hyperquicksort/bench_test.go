package hyperquicksort

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
)

// BenchmarkCheckDefault is `ftcheck check hyperquicksort` with its
// defaults, one worker.
func BenchmarkCheckDefault(b *testing.B) {
	for b.Loop() {
		m, err := NewModel(DefaultCheck)
		if err != nil {
			b.Fatal(err)
		}
		if res := checker.BFS[*World](m, checker.Options{Workers: 1}); !res.Complete || len(res.Violations) > 0 {
			b.Fatal("incomplete or violated")
		}
	}
}

// BenchmarkSimulate16 is one run of 16 processes of 64 values with half
// of them non-recommended in every sorting round.
func BenchmarkSimulate16(b *testing.B) {
	p := SimParams{N: 16, Values: 64, Input: 1, NonRec: set(8, 9, 10, 11, 12, 13, 14, 15)}
	for b.Loop() {
		if res, err := Simulate(p); err != nil || !res.Sorted || !res.Complete {
			b.Fatal(err)
		}
	}
}
