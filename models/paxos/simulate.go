package paxos

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	px "github.com/ftkernel/ftkernel/statemachine/paxos"
)

// Ranges of simulate's flags.
const (
	MaxSimProposers = 64
	MaxSimAcceptors = 63
	MaxSimInstances = 10_000
	MaxSimBudget    = 1_000
	MaxWalks        = 100_000
	MaxSteps        = 10_000_000
)

// DefaultSimulate are the defaults of `ftcheck simulate paxos`: far past
// the exhaustive bounds.
var DefaultSimulate = Params{Proposers: 5, Acceptors: 7, Instances: 50, Crashes: 3, Recoveries: 3, Loss: 20, Dup: 5, Delta: 1}

// defineSimulate is `ftcheck simulate paxos`: seeded random walks of the
// same model, every property checked on every step, termination at the
// quiescent end of each walk.
func defineSimulate(fs *flag.FlagSet) registry.SimBuilder {
	f := bind(fs, MaxSimProposers, MaxSimAcceptors, MaxSimInstances, MaxSimBudget, DefaultSimulate)
	walks := fs.Int("walks", 20, fmt.Sprintf("number of random walks, 1 … %d", MaxWalks))
	seed := fs.Uint64("seed", 1, "seed: the same seed and flags give the same walks")
	crashProb := fs.Float64("crash-prob", 0.01, "probability that a step is a crash or a restart when one is enabled, 0 … 1")
	maxSteps := fs.Int("max-steps", 0, fmt.Sprintf("steps per walk, 0 … %d (0: 2000·instances)", MaxSteps))
	return func(ctx context.Context, progress func(string)) (*registry.SimReport, error) {
		if err := flagcheck.First(flagcheck.Int("walks", int64(*walks), 1, MaxWalks, ""),
			flagcheck.Int("max-steps", int64(*maxSteps), 0, MaxSteps, "0: 2000·instances")); err != nil {
			return nil, err
		}
		if !(*crashProb >= 0 && *crashProb <= 1) {
			return nil, fmt.Errorf("--crash-prob %v: want 0 … 1", *crashProb)
		}
		p, err := f.params()
		if err != nil {
			return nil, err
		}
		p.CrashProb = *crashProb
		ms := *maxSteps
		if ms == 0 {
			ms = 2000 * p.Instances
		}
		m, err := NewModel(p)
		if err != nil {
			return nil, err
		}
		obs := &observer{Model: m}
		res := checker.Walk[*env.World](obs, registry.SimWalkOptions(ctx, progress, checker.WalkOptions{Walks: *walks, MaxSteps: ms, Seed: *seed}))
		if res.Err != nil {
			return nil, res.Err
		}
		rep := &registry.SimReport{Model: "paxos", Mode: "random-walks", Seed: *seed, Seconds: res.Seconds,
			Violations: []registry.ViolationRef{}, Interrupted: res.Canceled}
		if res.Violation != nil {
			res.Violation.Params = f.own()
			res.Violation.Params[registry.ModelParam] = "paxos"
			rep.Trace = res.Violation
			rep.Violations = append(rep.Violations, registry.ViolationRef{Property: res.Violation.Violation.Property, Steps: len(res.Violation.Steps)})
		}
		quiet := 0
		for _, st := range res.PerWalk {
			if st.Quiescent {
				quiet++
			}
		}
		obs.mu.Lock()
		defer obs.mu.Unlock()
		rep.Figures = map[string]any{
			"walks": res.Walks, "steps": res.Steps, "steps_per_second": res.StepsPerSec,
			"quiescent_walks": quiet, "max_steps": ms,
			"instances_decided_min": obs.minLog, "instances_decided_max": obs.maxLog,
			"crashes": obs.crashes, "restarts": obs.restarts, "losses": obs.losses, "duplicates": obs.dups,
			"noops_decided": obs.noops,
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n", m.Name())
		fmt.Fprintf(&b, "%d walks, %d steps (%.0f steps/s), %d ended quiescent (termination checked there), max %d steps a walk\n",
			res.Walks, res.Steps, res.StepsPerSec, quiet, ms)
		fmt.Fprintf(&b, "faults taken in all: %d crashes, %d restarts, %d losses, %d duplicates\n", obs.crashes, obs.restarts, obs.losses, obs.dups)
		fmt.Fprintf(&b, "instances decided at the end of a walk, by its longest live log: %d … %d (no-ops %d in all)\n", obs.minLog, obs.maxLog, obs.noops)
		if res.Violation == nil {
			b.WriteString("all checked properties hold on every step\n")
		}
		rep.Text = b.String()
		return rep, nil
	}
}

// observer measures walks (checker.Observer): the faults each took and
// how many instances its learners decided.
type observer struct {
	*env.Model
	mu                              sync.Mutex
	crashes, restarts, losses, dups int
	minLog, maxLog, noops           int
	ended                           int
}

func (o *observer) ObserveStep(int, *env.World, checker.Action, *env.World) {}

func (o *observer) ObserveEnd(_ int, w *env.World, _ checker.WalkStat) {
	longest, noops := 0, 0
	for r := range core.Rank(w.N()) {
		if w.Crashed(r) {
			continue
		}
		log := w.Node(r).(*px.Node).Log()
		if len(log) > longest {
			longest, noops = len(log), 0
			for _, c := range log {
				if c.IsNoop() {
					noops++
				}
			}
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.crashes += w.NumCrashed() + w.Recoveries()
	o.restarts += w.Recoveries()
	o.losses += w.Lost()
	o.dups += w.Duplicated()
	o.noops += noops
	if o.ended == 0 || longest < o.minLog {
		o.minLog = longest
	}
	o.maxLog = max(o.maxLog, longest)
	o.ended++
}
