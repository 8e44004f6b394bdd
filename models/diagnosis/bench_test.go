package diagnosis

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// BenchmarkRound: one test round of each algorithm at n = 256 and 1024 with the odd nodes faulty,
// once diagnosis has converged.
func BenchmarkRound(b *testing.B) {
	for _, alg := range []string{ADSD, HiADSD, VCube} {
		for _, n := range []int{256, 1024} {
			b.Run(fmt.Sprintf("%s/n=%d", alg, n), func(b *testing.B) {
				var f []core.Rank
				for r := 1; r < n; r += 2 {
					f = append(f, core.Rank(r))
				}
				run, err := Measure(alg, n, f, "", MaxRounds(n))
				if err != nil {
					b.Fatal(err)
				}
				sys := run.Converged
				b.ResetTimer()
				for b.Loop() {
					sys.Round()
				}
			})
		}
	}
}

// BenchmarkCheck: the exhaustive check of each model over every fault set of n = 8.
func BenchmarkCheck(b *testing.B) {
	for _, alg := range []string{ADSD, HiADSD, VCube} {
		b.Run(alg, func(b *testing.B) {
			r := modeltest.Build(b, alg, "--n", "8")
			for b.Loop() {
				if res := r.BFS(checker.Options{}); res.Err != nil || len(res.Violations) > 0 {
					b.Fatalf("err %v, %d violations", res.Err, len(res.Violations))
				}
			}
		})
	}
}
