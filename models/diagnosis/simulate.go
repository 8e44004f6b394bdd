package diagnosis

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	dg "github.com/ftkernel/ftkernel/statemachine/diagnosis"
)

// MaxSimN is the largest n of ftcheck simulate.
const MaxSimN = 1024

// parseRanks reads "1,4,5" (or the empty string) as distinct ranks 0 … n−1.
func parseRanks(s string, n int) ([]core.Rank, error) {
	var out []core.Rank
	seen := map[int]bool{}
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 0 || k >= n {
			return nil, fmt.Errorf("--faulty %q: %q is not a node 0 … %d", s, f, n-1)
		}
		if seen[k] {
			return nil, fmt.Errorf("--faulty %q: node %d twice", s, k)
		}
		seen[k] = true
		out = append(out, core.Rank(k))
	}
	if len(out) >= n {
		return nil, fmt.Errorf("--faulty %q: every node faulty", s)
	}
	return out, nil
}

// defineSimulate is ftcheck simulate adsd|vcube: one deterministic run from the start with a
// fixed fault set, until diagnosis converges, then one round of each s.
func defineSimulate(alg string) func(fs *flag.FlagSet) registry.SimBuilder {
	return func(fs *flag.FlagSet) registry.SimBuilder {
		n := fs.Int("n", 8, fmt.Sprintf("number of nodes, 2 … %d (vcube: a power of two)", MaxSimN))
		faulty := fs.String("faulty", "", "the faulty nodes, comma-separated (e.g. 1,4,5)")
		return func(ctx context.Context, _ func(string)) (*registry.SimReport, error) {
			if err := flagcheck.Int("n", int64(*n), 2, MaxSimN, ""); err != nil {
				return nil, err
			}
			if alg == VCube && *n&(*n-1) != 0 {
				return nil, fmt.Errorf("--n %d: not a power of two", *n)
			}
			f, err := parseRanks(*faulty, *n)
			if err != nil {
				return nil, err
			}
			run, err := Measure(alg, *n, f, "", MaxRounds(*n))
			if err != nil {
				return nil, err
			}
			rep := &registry.SimReport{Model: alg, Mode: "deterministic", Violations: []registry.ViolationRef{}}
			cycle := CycleTests(run.Converged, *n)
			var b strings.Builder
			fmt.Fprintf(&b, "%s n=%d faulty=%v\n", alg, *n, f)
			fmt.Fprintf(&b, "diagnosis correct at every fault-free node after %d test rounds (%d tests)\n", run.LatencyRounds, run.TestsToConverge)
			switch alg {
			case VCube:
				clusters := map[string]map[string][]int{}
				for i := 0; i < *n; i++ {
					row := map[string][]int{}
					for s := 1; s <= LogN(*n); s++ {
						c, _ := core.Cluster(core.Rank(i), s, *n)
						row[strconv.Itoa(s)] = intsOf(c)
					}
					clusters[strconv.Itoa(i)] = row
				}
				tests := map[string][][2]int{}
				total := 0
				for _, r := range cycle {
					pairs := [][2]int{}
					for _, t := range r.Tests {
						pairs = append(pairs, [2]int{int(t.Tester), int(t.Tested)})
					}
					tests[strconv.Itoa(r.S)] = pairs
					total += len(r.Tests)
					if *n <= 64 {
						fmt.Fprintf(&b, "round s=%d, %d tests: %s\n", r.S, len(r.Tests), formatTests(r.Tests))
					} else {
						fmt.Fprintf(&b, "round s=%d: %d tests\n", r.S, len(r.Tests))
					}
				}
				fmt.Fprintf(&b, "%d tests in a cycle of %d rounds (n·log2 n = %d)\n", total, LogN(*n), *n*LogN(*n))
				rep.Figures = map[string]any{"clusters": clusters, "tests": tests, "latency_rounds": run.LatencyRounds}
			case ADSD:
				a := run.Converged.(*dg.ADSD)
				up := map[string][]*int{}
				for x := 0; x < *n; x++ {
					if a.Faulty(core.Rank(x)) {
						continue
					}
					bad := a.Diagnose(core.Rank(x))
					vec := make([]*int, *n)
					for k, r := range a.TestedUp[x] {
						if !bad[k] && r != core.NoRank {
							v := int(r)
							vec[k] = &v
						}
					}
					up[strconv.Itoa(x)] = vec
				}
				fmt.Fprintf(&b, "one round after convergence: %d tests, %d TESTED_UP entries copied (diagnostic messages)\n", len(cycle[0].Tests), cycle[0].Copied)
				rep.Figures = map[string]any{"tested_up": up, "tests": len(cycle[0].Tests), "latency_rounds": run.LatencyRounds,
					"entries_copied": cycle[0].Copied}
			}
			rep.Text = b.String()
			return rep, nil
		}
	}
}

func intsOf(rs []core.Rank) []int {
	out := make([]int, len(rs))
	for k, r := range rs {
		out[k] = int(r)
	}
	return out
}
