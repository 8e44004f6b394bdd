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

// TestHiADSDTestsQuadratic: over every fault set of n = 4, 8 and 16, the most tests Hi-ADSD runs
// in a converged cycle of log2 n rounds, against VCube's n·log2 n. At n = 16 Hi-ADSD exceeds it
// (§3.4: "o número de testes executados é quadrático"); VCube never does.
func TestHiADSDTestsQuadratic(t *testing.T) {
	for _, n := range []int{4, 8, 16} {
		worst := map[string]int{}
		var worstSet []core.Rank
		for mask := 0; mask < 1<<n-1; mask++ {
			var f []core.Rank
			for r := 0; r < n; r++ {
				if mask>>r&1 == 1 {
					f = append(f, core.Rank(r))
				}
			}
			for _, alg := range []string{HiADSD, VCube} {
				run, err := Measure(alg, n, f, "", MaxRounds(n))
				if err != nil {
					t.Fatal(err)
				}
				total := 0
				for _, r := range CycleTests(run.Converged, n) {
					total += len(r.Tests)
				}
				if total > worst[alg] {
					worst[alg] = total
					if alg == HiADSD {
						worstSet = f
					}
				}
			}
		}
		bound := n * LogN(n)
		t.Logf("n=%d: most tests in a cycle: Hi-ADSD %d (faulty %v), VCube %d; n·log2 n = %d", n, worst[HiADSD], worstSet, worst[VCube], bound)
		if worst[VCube] > bound {
			t.Errorf("n=%d: VCube ran %d tests in a converged cycle > %d", n, worst[VCube], bound)
		}
		if n == 16 && worst[HiADSD] <= bound {
			t.Errorf("n=16: Hi-ADSD's worst cycle has %d tests, not above n·log2 n = %d", worst[HiADSD], bound)
		}
	}
}
