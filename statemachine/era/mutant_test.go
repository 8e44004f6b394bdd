package era

import (
	"testing"

	"github.com/ftkernel/ftkernel/internal/mutant"
)

// TestMutantsAreCaught checks that random schedules with failures find a
// violation of a §2.1 property for every mutant, which is also evidence that
// TestRandomSchedulesWithFailures can fail.
func TestMutantsAreCaught(t *testing.T) {
	for _, m := range Mutants {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			if seed, cfg, err := findViolation(m, 3000); err != nil {
				t.Logf("caught: %v N=%d seed=%d: %v", cfg.Topology, cfg.N, seed, err)
			} else {
				t.Fatalf("mutant %q survived random schedules", m)
			}
		})
	}
}

// findViolation searches random runs of mutant m for a violation.
func findViolation(m mutant.Name, seeds int) (int, Config, error) {
	for seed := range seeds {
		for _, topo := range []Topology{Binary, Star, String} {
			for n := 3; n <= 7; n++ {
				// gc-drops-result breaks the §3 garbage collection, so
				// it needs GC on.
				cfg := Config{N: n, Topology: topo, Mutant: m, GC: m == MutantGCDropsResult}
				if err := randomRun(cfg, uint64(seed), n-1); err != nil {
					return seed, cfg, err
				}
			}
		}
	}
	return 0, Config{}, nil
}
