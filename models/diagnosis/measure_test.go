package diagnosis

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// TestLatencyEveryFaultSet runs each algorithm from the start over every fault set of n = 8
// nodes leaving one fault-free, and checks its latency against its bound (LatencyBound).
func TestLatencyEveryFaultSet(t *testing.T) {
	const n = 8
	for _, alg := range []string{ADSD, HiADSD, VCube} {
		worst, worstSet := 0, []core.Rank(nil)
		for mask := 0; mask < 1<<n-1; mask++ {
			var f []core.Rank
			for r := 0; r < n; r++ {
				if mask>>r&1 == 1 {
					f = append(f, core.Rank(r))
				}
			}
			run, err := Measure(alg, n, f, "", MaxRounds(n))
			if err != nil {
				t.Fatal(err)
			}
			if run.LatencyRounds > LatencyBound(alg, n) {
				t.Fatalf("%s faulty=%v: latency %d rounds > bound %d", alg, f, run.LatencyRounds, LatencyBound(alg, n))
			}
			if run.LatencyRounds > worst {
				worst, worstSet = run.LatencyRounds, f
			}
		}
		t.Logf("%s n=%d: worst latency %d rounds at faulty %v (bound %d)", alg, n, worst, worstSet, LatencyBound(alg, n))
	}
}
