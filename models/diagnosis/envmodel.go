package diagnosis

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/props"
	dg "github.com/ftkernel/ftkernel/statemachine/diagnosis"
)

// EnvParams is VCube over a network (statemachine/diagnosis.VCubeNode) in checker/env's
// bounded-delay environment: a global clock in ticks, every message delivered within
// [t+1, t+Δ], the round timers firing at their deadlines, every order of a tick's steps
// explored, and up to Crashes nodes crashing at any step (crash-stop: a crashed node neither
// tests nor answers). Every node calls Start at tick 0. It is what `ftcheck run vcube` runs and
// `ftcheck validate` replays.
type EnvParams struct {
	Node    dg.VCubeNodeConfig
	Crashes int
	// DetectBound is the completeness bound B in rounds: a node that crashed in its round g is
	// diagnosed by every live node before that node's round g + B + 1.
	DetectBound int
}

// DefaultDetectBound is (log2 n)² + 1 rounds: the per-event latency that VCube's ScalA 2014
// paper states, (log2 n)² (thesis §3.4 states it for Hi-ADSD), plus the round in which the node
// crashed, during which it may still have answered tests.
func DefaultDetectBound(n int) int { return LogN(n)*LogN(n) + 1 }

// NewEnvModel builds the environment model. Its properties are accuracy (no live node is ever
// diagnosed faulty: tests are accurate, PMC), completeness (EnvCompleteness), tester-rule
// (EnvTesterRule), then the environment's timing rules (env.TimingProperties). Errors: an
// invalid node configuration, a crash budget outside 0 … n − 1, a bound below 1.
func NewEnvModel(p EnvParams) (*env.Model, error) {
	cfg := p.Node
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if p.Crashes < 0 || p.Crashes > cfg.N-1 {
		return nil, fmt.Errorf("vcube: --crashes %d: out of range 0 … %d", p.Crashes, cfg.N-1)
	}
	if p.DetectBound < 1 {
		return nil, fmt.Errorf("vcube: --detect-bound %d rounds, want ≥ 1", p.DetectBound)
	}
	starts := make([][]core.Input, cfg.N)
	for i := range starts {
		starts[i] = []core.Input{dg.StartVCube{}}
	}
	diagnoses := func(w *env.World, a, b core.Rank) bool { return vnode(w, a).Diagnosis().Has(b) }
	properties := []checker.Property[*env.World]{
		props.StrongAccuracy("accuracy", "no live node is diagnosed faulty (§3.4: tests are accurate, PMC; a live node answers every test within the round)", diagnoses),
		EnvCompleteness(p.DetectBound, cfg.MaxRounds),
		EnvTesterRule(cfg.N),
	}
	properties = append(properties, env.TimingProperties()...)
	name := fmt.Sprintf("vcube timing=bounded round-ticks=%d max-rounds=%d detect-bound=%d", cfg.RoundTicks(), cfg.MaxRounds, p.DetectBound)
	if cfg.Mutant != "" {
		name += " mutant=" + string(cfg.Mutant)
	}
	return env.New(env.Config{
		Name:      name,
		N:         cfg.N,
		Crashes:   p.Crashes,
		Detector:  env.DetectorNone,
		Timing:    env.BoundedDelay,
		Delta:     int(cfg.Delta),
		Schedules: [][][]core.Input{starts},
		NewNode: func(i core.Rank, _ int) core.Machine {
			v, err := dg.NewVCubeNode(&cfg, i)
			if err != nil {
				panic(err) // unreachable: Validate passed and i < N
			}
			return v
		},
		Properties: properties,
		Codec:      env.Codec{Message: func(b []byte) (core.Message, error) { return dg.DecodeVCubeMessage(b, cfg.N) }},
	})
}

func vnode(w *env.World, i core.Rank) *dg.VCubeNode { return w.Node(i).(*dg.VCubeNode) }

// EnvCompleteness is completeness as a bounded response in rounds, an Invariant: for every
// crashed node x, whose machine stopped in its round g_x (VCubeNode.Round of its last state),
// every live node h whose round exceeds g_x + bound diagnoses x. Rounds are read from the nodes'
// own counters, equal at every node in every tick but the one where their round timers fire
// (one timer, one length, one start). With maxRounds ≤ bound it cannot fail, and its Doc says so.
func EnvCompleteness(bound int, maxRounds uint64) checker.Property[*env.World] {
	doc := fmt.Sprintf("a node that crashed in its round g is diagnosed by every live node before that node's round g+%d (VCube's (log2 n)² per event, ScalA 2014, and the round of the crash)", bound+1)
	if maxRounds > 0 && maxRounds <= uint64(bound) {
		doc += fmt.Sprintf("; vacuous here: runs of %d rounds ≤ the bound %d", maxRounds, bound)
	}
	return checker.Property[*env.World]{Name: "completeness", Kind: checker.Invariant, Doc: doc,
		Check: func(w *env.World) error {
			for x := range core.Rank(w.N()) {
				if !w.Crashed(x) {
					continue
				}
				gx := vnode(w, x).Round()
				for h := range core.Rank(w.N()) {
					if w.Crashed(h) {
						continue
					}
					if v := vnode(w, h); v.Round() > gx+uint64(bound) && !v.Diagnosis().Has(x) {
						return fmt.Errorf("%v crashed in its round %d and live %v, in round %d, does not diagnose it: %v", x, gx, h, v.Round(), v)
					}
				}
			}
			return nil
		}}
}

// EnvTesterRule is VCube's tester rule at the start of each round (§3.4), a Transition property:
// when live node i begins round s believing exactly the crashed nodes faulty, the nodes it tests
// are the j ∈ c(i, s) whose c(j, s) has i as its first live node. The expected tests come from
// core.Cluster and the world's crashed set, not from the machine. With every live node's
// diagnosis correct, node j is so tested by exactly the first live node of c(j, s), by none if
// c(j, s) has none.
func EnvTesterRule(n int) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: "tester-rule", Kind: checker.Transition,
		Doc: "a live node that begins round s with a correct diagnosis tests exactly the j ∈ c(i, s) of which it is the first live node of c(j, s) (§3.4)",
		CheckStep: func(prev *env.World, a checker.Action, next *env.World) error {
			i := core.Rank(a.P)
			if a.Kind != env.Fire && a.Kind != env.Call || next.Crashed(i) {
				return nil
			}
			v := vnode(next, i)
			if v.Round() == vnode(prev, i).Round() || !v.Diagnosis().Equal(next.CrashedSet()) {
				return nil
			}
			var want core.RankSet
			ci, _ := core.Cluster(i, v.S(), n)
			for _, j := range ci {
				cj, _ := core.Cluster(j, v.S(), n)
				for _, k := range cj {
					if !next.Crashed(k) {
						if k == i {
							want.Add(j)
						}
						break
					}
				}
			}
			if got := v.Tested(); !got.Equal(want) {
				return fmt.Errorf("%v began round s=%d diagnosing %v, the crashed set, and tests %v; the rule gives %v", i, v.S(), v.Diagnosis(), got, want)
			}
			return nil
		}}
}
