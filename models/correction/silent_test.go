package correction

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	sm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// silentModelP is the asynchronous model of a Corrected Tree broadcast as
// registry/correction.go builds it (root 0 broadcasts 42 once, overlapped
// start, no detector, the root survives), checking ColoredSilent(early)
// and the §2.1 properties of Properties, over P processes. With
// P = 4, interleaved binomial tree (0 → 1, 2; 1 → 3), opportunistic
// correction d = 1, the root's first correction message (left, to 3) or
// second (right, to 1) may overtake a tree message, so 1, which has a
// child, can be colored by correction; P = 2 is the smallest model.
func silentModelP(t *testing.T, P int, early sm.EarlyRule, mut mutant.Name, faults int) *env.Model {
	t.Helper()
	top, err := sm.NewTopology(sm.Tree{Kind: sm.BinomialInterleaved}, P)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sm.Config{Topology: top, Correction: sm.Opportunistic, Distance: 1, Start: sm.Overlapped, Early: early, Mutant: mut, Compact: true}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	sched := make([][]core.Input, P)
	sched[0] = []core.Input{sm.Broadcast{Value: 42}}
	m, err := env.New(env.Config{
		Name: fmt.Sprintf("silent early=%v mutant=%q faults=%d", early, mut, faults), N: P, Crashes: faults,
		NewNode: func(r core.Rank, _ int) core.Machine {
			n, err := sm.New(cfg, r)
			if err != nil {
				panic(err) // validated above
			}
			return n
		},
		Schedules: [][][]core.Input{sched}, Survivors: []core.Rank{0}, Detector: env.DetectorNone,
		Properties: append(Properties(), ColoredSilent(early)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// violated lists the violated properties of a complete breadth-first search
// that continues after violations.
func violated(t *testing.T, m *env.Model) (map[string]int, *checker.Result) {
	t.Helper()
	res := checker.BFS(m, checker.Options{ContinueAfterViolation: true})
	if res.Err != nil || !res.Complete {
		t.Fatalf("%s: err %v, complete %t (%s)", m.Name(), res.Err, res.Complete, res.Stop)
	}
	out := map[string]int{}
	for _, v := range res.Violations {
		out[v.Violation.Property] = len(v.Steps)
	}
	return out, res
}

// §3.1/§3.3: correction-colored-silent holds on both readings of the
// early-correction rule and fails on MutantColoredSends (a process colored
// by correction acts as if colored by the tree), and it is the only
// property that notices: the §2.1 properties hold on the mutant. The
// shortest counterexample is 4 steps at every size (P = 2: the root's
// call, its send slot sending CORRECTION to 1 ahead of TREE, 1 colored and
// arming a slot, 1 sending CORRECTION).
func TestColoredSilentCatchesColoredSends(t *testing.T) {
	for _, P := range []int{2, 4} {
		for _, early := range []sm.EarlyRule{sm.EarlySilent, sm.EarlyForwards} {
			for _, faults := range []int{0, 1} {
				ok, res := violated(t, silentModelP(t, P, early, mutant.None, faults))
				if len(ok) != 0 {
					t.Fatalf("P=%d early=%v faults=%d: correct protocol violates %v", P, early, faults, ok)
				}
				bad, mres := violated(t, silentModelP(t, P, early, sm.MutantColoredSends, faults))
				steps, caught := bad[ColoredSilentName]
				if !caught || len(bad) != 1 || steps != 4 {
					t.Fatalf("P=%d early=%v faults=%d: mutant violates %v, want only %s in 4 steps", P, early, faults, bad, ColoredSilentName)
				}
				t.Logf("P=%d early=%v faults=%d: correct %d states; mutant caught in %d steps (%d states)", P, early, faults, res.States, steps, mres.States)
			}
		}
	}
}
