package diagnosis

import (
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	dg "github.com/ftkernel/ftkernel/statemachine/diagnosis"
	"pgregory.net/rapid"
)

// TestRapidEventSequences drives each algorithm with random n (up to 64), a random initial fault
// set and a random sequence of events, each taken once diagnosis is correct, and checks after
// every event: Adaptive-DSD and Hi-ADSD converge within their bounds (n, (log2 n)²); once
// converged, a VCube round has exactly the tests of the rule (ExpectedVCubeTests) and an
// Adaptive-DSD round n tests (n − 1 with one fault-free node).
func TestRapidEventSequences(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		alg := rapid.SampledFrom([]string{ADSD, HiADSD, VCube}).Draw(rt, "alg")
		n := 1 << rapid.IntRange(1, 6).Draw(rt, "log2n")
		var faulty []core.Rank
		for r := 0; r < n; r++ {
			if len(faulty) < n-1 && rapid.IntRange(0, 3).Draw(rt, "f") == 0 {
				faulty = append(faulty, core.Rank(r))
			}
		}
		sys, err := NewSystem(alg, n, faulty, "")
		if err != nil {
			rt.Fatal(err)
		}
		events := rapid.IntRange(0, 6).Draw(rt, "events")
		for e := 0; e <= events; e++ {
			rounds := 0
			for !dg.Converged(sys, n) {
				sys.Round()
				rounds++
				if rounds > MaxRounds(n) {
					rt.Fatalf("%s n=%d faulty %v: not converged after %d rounds", alg, n, sys.FaultSet(), rounds)
				}
			}
			if alg != VCube && rounds > LatencyBound(alg, n) {
				rt.Fatalf("%s n=%d event %d: %d rounds > bound %d", alg, n, e, rounds, LatencyBound(alg, n))
			}
			for k := 0; k < LogN(n); k++ {
				rep := sys.Round()
				switch alg {
				case VCube:
					got := slices.Clone(rep.Tests)
					sortTests(got)
					if want := ExpectedVCubeTests(sys, n, rep.S); !slices.Equal(got, want) {
						rt.Fatalf("n=%d s=%d: tests %s, rule %s", n, rep.S, formatTests(got), formatTests(want))
					}
				case ADSD:
					want := n
					if len(sys.FaultSet()) == n-1 {
						want = n - 1
					}
					if len(rep.Tests) != want {
						rt.Fatalf("n=%d: %d tests, want %d", n, len(rep.Tests), want)
					}
				}
			}
			if e == events {
				break
			}
			p := core.Rank(rapid.IntRange(0, n-1).Draw(rt, "p"))
			if !sys.Faulty(p) && len(sys.FaultSet()) == n-1 {
				continue // the last fault-free node stays fault-free
			}
			sys.Event(p)
		}
	})
}
