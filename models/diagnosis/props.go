package diagnosis

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	dg "github.com/ftkernel/ftkernel/statemachine/diagnosis"
)

// LatencyBound is the bound on test rounds from the last event to a consistent and correct
// diagnosis: n for Adaptive-DSD (§3.3: "no pior caso, a latência do algoritmo Adaptive-DSD é n
// rodadas de testes"), (log2 n)² for Hi-ADSD (§3.4, "log_2^2 N", read as (log2 N)²: erratum
// E26). The thesis states no latency bound for VCube; its model is measured against Hi-ADSD's.
// Since counts the rounds without a correct diagnosis, so latency L rounds violates the bound b
// iff L > b.
func LatencyBound(alg string, n int) int {
	if alg == ADSD {
		return n
	}
	return LogN(n) * LogN(n)
}

func (md *Model) properties() []checker.Property[*State] {
	bound := LatencyBound(md.Alg, md.N)
	src := map[string]string{ADSD: "§3.3", HiADSD: "§3.4", VCube: "§3.4 (Hi-ADSD's bound)"}[md.Alg]
	ps := []checker.Property[*State]{{
		Name: "Latency", Kind: checker.Invariant,
		// VCube does not claim Hi-ADSD's bound, and exceeds it from the start at n = 16
		// (TestVCubeLatencyPastHiADSDBound): the property is checked when asked for by name.
		ExpectFail: md.Alg == VCube,
		Doc:        fmt.Sprintf("every fault-free node's diagnosis is the fault set within %d test rounds of the start or the last event (%s)", bound, src),
		Check: func(s *State) error {
			if s.Since >= bound {
				return fmt.Errorf("%d test rounds since the last event and diagnosis not correct: %s", s.Since, wrongViews(s.Sys, md.N))
			}
			return nil
		},
	}, {
		Name: "StaysCorrect", Kind: checker.Transition, Reads: checker.ReadsState,
		Doc: "once every fault-free node's diagnosis is correct, a test round keeps it correct (no spurious events)",
		CheckStep: func(prev *State, a checker.Action, next *State) error {
			if a.Kind == KindRound && dg.Converged(prev.Sys, md.N) && !dg.Converged(next.Sys, md.N) {
				return fmt.Errorf("a round made diagnosis incorrect: %s", wrongViews(next.Sys, md.N))
			}
			return nil
		},
	}}
	switch md.Alg {
	case ADSD:
		ps = append(ps, checker.Property[*State]{
			Name: "TestsPerRound", Kind: checker.Transition, Reads: checker.ReadsState,
			Doc: "once converged, a test round has n tests while two or more nodes are fault-free, n − 1 with one (§3.3)",
			CheckStep: func(prev *State, a checker.Action, next *State) error {
				if a.Kind != KindRound || !dg.Converged(prev.Sys, md.N) {
					return nil
				}
				want := md.N
				if len(prev.Sys.FaultSet()) == md.N-1 {
					want = md.N - 1
				}
				if got := len(next.Last.Tests); got != want {
					return fmt.Errorf("%d tests in a round, want %d: %s", got, want, formatTests(next.Last.Tests))
				}
				return nil
			},
		})
	case VCube:
		limit := md.N * LogN(md.N)
		ps = append(ps, checker.Property[*State]{
			Name: "TesterRule", Kind: checker.Transition, Reads: checker.ReadsState,
			Doc: "once converged, in round s node j is tested by exactly the first fault-free node of c(j, s), by none if c(j, s) has none (§3.4)",
			CheckStep: func(prev *State, a checker.Action, next *State) error {
				if a.Kind != KindRound || !dg.Converged(prev.Sys, md.N) {
					return nil
				}
				want := ExpectedVCubeTests(prev.Sys, md.N, next.Last.S)
				got := slices.Clone(next.Last.Tests)
				sortTests(got)
				if !slices.Equal(got, want) {
					return fmt.Errorf("round s=%d tests %s, the rule gives %s", next.Last.S, formatTests(got), formatTests(want))
				}
				return nil
			},
		}, checker.Property[*State]{
			Name: "TestsPerCycle", Kind: checker.Invariant,
			// A recovering node restarts believing every node fault-free, and until the others
			// learn of its recovery it tests nodes that another node also tests: one recovery
			// breaks the bound (TestTestsPerCycleFailsAfterRecovery).
			ExpectFail: md.Events > 0,
			Doc:        fmt.Sprintf("at most n·log2 n = %d tests in each cycle of log2 n rounds s = 1 … log2 n (§3.4); expected to fail with events (a recovery)", limit),
			Check: func(s *State) error {
				if s.CycleTests > limit {
					return fmt.Errorf("%d tests in this cycle, more than n·log2 n = %d", s.CycleTests, limit)
				}
				return nil
			},
		})
	}
	return ps
}

// ExpectedVCubeTests is the set of tests VCube's rule prescribes for round s with every view
// correct: for every fault-free j, (first fault-free node of c(j, s), j), when c(j, s) has one;
// sorted by tester, then tested. It uses core.Cluster, never the machine's cluster function.
func ExpectedVCubeTests(sys dg.System, n, s int) []dg.Test {
	var out []dg.Test
	for j := core.Rank(0); int(j) < n; j++ {
		c, err := core.Cluster(j, s, n)
		if err != nil {
			panic(err) // unreachable: n and s come from a built model
		}
		for _, k := range c {
			if !sys.Faulty(k) {
				out = append(out, dg.Test{Tester: k, Tested: j})
				break
			}
		}
	}
	sortTests(out)
	return out
}

func sortTests(ts []dg.Test) {
	slices.SortFunc(ts, func(a, b dg.Test) int {
		if a.Tester != b.Tester {
			return int(a.Tester - b.Tester)
		}
		return int(a.Tested - b.Tested)
	})
}

// wrongViews names the first fault-free node whose diagnosis is wrong, and what it believes.
func wrongViews(sys dg.System, n int) string {
	for x := core.Rank(0); int(x) < n; x++ {
		if sys.Faulty(x) {
			continue
		}
		d := sys.Diagnose(x)
		for k, b := range d {
			if b != sys.Faulty(core.Rank(k)) {
				var believed []int
				for r, f := range d {
					if f {
						believed = append(believed, r)
					}
				}
				return fmt.Sprintf("p%d diagnoses %s faulty, the fault set is %v", x, setString(believed), sys.FaultSet())
			}
		}
	}
	return "every diagnosis correct"
}
