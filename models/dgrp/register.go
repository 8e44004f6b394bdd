package dgrp

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	dg "github.com/ftkernel/ftkernel/statemachine/dgrp"
)

func init() {
	registry.Register(&registry.Protocol{
		Name:     "dgrp",
		Doc:      "the Dynamic Group of Recommended Processes (de Camargo 2017 §4.1): imperfect all-to-all tests, event counters, EVENTS broadcast, barrier, Paxos re-admission after ζ good tests, lossy channels",
		Define:   defineCheck,
		Mutants:  mutantInfos(),
		Simulate: defineSimulate,
	})
}

// Ranges of the check's flags.
const (
	MaxCheckN      = 6
	MaxCheckZeta   = 8
	MaxCheckRounds = 8
	MaxCheckSlow   = 6
	MaxCheckLoss   = 8
)

// DefaultCheck are the defaults of `ftcheck check dgrp`.
var DefaultCheck = Params{N: 3, Zeta: 2, Rounds: 1, Imperfect: true, Slow: 1}

var flagNames = []string{"n", "zeta", "rounds", "imperfect", "slow", "loss", "ignore-when-out", "consensus", "mutant"}

func defineCheck(fs *flag.FlagSet) registry.Builder {
	d := DefaultCheck
	n := fs.Int("n", d.N, fmt.Sprintf("number of processes N, 2 … %d", MaxCheckN))
	zeta := fs.Int("zeta", d.Zeta, fmt.Sprintf("ζ: consecutive recommended tests before a re-admission request, 1 … %d", MaxCheckZeta))
	rounds := fs.Int("rounds", d.Rounds, fmt.Sprintf("test rounds R (a barrier ends each), 1 … %d", MaxCheckRounds))
	imperfect := fs.Bool("imperfect", d.Imperfect, "imperfect tests: a slow test is one tester's (testers may disagree); false: a slow process is slow for every tester of the round")
	slow := fs.Int("slow", d.Slow, fmt.Sprintf("budget of slow tests (over the recommendation threshold) in a run, the environment's choice, 0 … %d", MaxCheckSlow))
	loss := fs.Int("loss", d.Loss, fmt.Sprintf("loss budget L: at most this many messages lost in a run, 0 … %d", MaxCheckLoss))
	ignore := fs.Bool("ignore-when-out", false, "AMBIGUOUS-2 read literally: a process outside its own view ignores what it receives")
	cons := fs.String("consensus", ConsensusPaxos, "re-admission consensus: paxos (statemachine/paxos) or oracle (a sequencer deciding in arrival order, each process learning in order: the decisions Paxos makes without crashes)")
	mut := fs.String("mutant", "", "test-only broken variant (see ftcheck list)")
	return func() (registry.Runner, error) {
		if err := flagcheck.First(
			flagcheck.Int("n", int64(*n), 2, MaxCheckN, ""),
			flagcheck.Int("zeta", int64(*zeta), 1, MaxCheckZeta, ""),
			flagcheck.Int("rounds", int64(*rounds), 1, MaxCheckRounds, ""),
			flagcheck.Int("slow", int64(*slow), 0, MaxCheckSlow, ""),
			flagcheck.Int("loss", int64(*loss), 0, MaxCheckLoss, ""),
		); err != nil {
			return nil, err
		}
		if *cons != ConsensusPaxos && *cons != ConsensusOracle {
			return nil, fmt.Errorf("--consensus %q: want paxos or oracle", *cons)
		}
		if m := mutant.Name(*mut); m != mutant.None && !slices.Contains(dg.Mutants, m) {
			return nil, fmt.Errorf("--mutant %q: unknown dgrp mutant (see ftcheck list)", *mut)
		}
		p := Params{N: *n, Zeta: *zeta, Rounds: *rounds, Imperfect: *imperfect, Slow: *slow, Loss: *loss,
			IgnoreWhenOut: *ignore, Consensus: *cons, Mutant: mutant.Name(*mut)}
		m, err := NewModel(p)
		if err != nil {
			return nil, err
		}
		own := map[string]string{}
		for _, name := range flagNames {
			own[name] = fs.Lookup(name).Value.String()
		}
		return registry.Erase(m, "dgrp", own), nil
	}
}

func mutantInfos() []registry.MutantInfo {
	docs := map[mutant.Name]string{
		dg.MutantReadmitWithoutConsensus: "the leader re-admits on a request by DECIDE, without consensus (readmission)",
		dg.MutantRemoveOnlyIfAll:         "a process is removed only when every other member tested it non-recommended (divergent-tests)",
		dg.MutantNoEventsBroadcast:       "a tester keeps its detections to itself (membership)",
		dg.MutantDoubleIncrement:         "a re-admission increments the counter whatever it is, AMBIGUOUS-6 read literally (removal-by-test)",
		dg.MutantRequesterProposes:       "the member that saw ζ good tests proposes itself instead of asking the leader (leader-lowest)",
		dg.MutantKeepDuplicates:          "the leader remembers no request and proposes each one (one-consensus)",
	}
	return registry.MutantInfos(dg.Mutants, docs)
}

// Ranges of simulate's flags.
const (
	MaxSimN      = 256
	MaxSimRounds = 1_000_000
)

// defineSimulate is `ftcheck simulate dgrp`: the campaign of §4.3 with
// synthetic response times (Campaign).
func defineSimulate(fs *flag.FlagSet) registry.SimBuilder {
	d := DefaultCampaign
	n := fs.Int("n", d.N, fmt.Sprintf("number of processes, 2 … %d", MaxSimN))
	zeta := fs.Int("zeta", d.Zeta, fmt.Sprintf("ζ, 1 … %d", dg.MaxZeta))
	rounds := fs.Int("rounds", d.Rounds, fmt.Sprintf("test rounds, 1 … %d", MaxSimRounds))
	seed := fs.Uint64("seed", 1, "seed of the response times: the same seed and flags give the same run")
	f := fs.Float64("f", d.F, "threshold factor F (threshold = F·RTO), > 0")
	svg := fs.String("svg", "", "write the group's size per round (Fig. 4.13's shape) to this SVG file")
	return func(ctx context.Context, progress func(string)) (*registry.SimReport, error) {
		if err := flagcheck.First(
			flagcheck.Int("n", int64(*n), 2, MaxSimN, ""),
			flagcheck.Int("zeta", int64(*zeta), 1, dg.MaxZeta, ""),
			flagcheck.Int("rounds", int64(*rounds), 1, MaxSimRounds, ""),
		); err != nil {
			return nil, err
		}
		if !(*f > 0) {
			return nil, fmt.Errorf("--f %v: want > 0", *f)
		}
		c := d
		c.N, c.Zeta, c.Rounds, c.Seed, c.F = *n, *zeta, *rounds, *seed, *f
		start := time.Now()
		res, err := Campaign(c)
		if err != nil {
			return nil, err
		}
		if *svg != "" {
			file, err := os.Create(*svg)
			if err != nil {
				return nil, err
			}
			if err := WriteGroupSize(file, res.GroupSize, c); err != nil {
				file.Close()
				return nil, err
			}
			if err := file.Close(); err != nil {
				return nil, err
			}
		}
		minSize, minAt := c.N, 0
		for r, s := range res.GroupSize {
			if s < minSize {
				minSize, minAt = s, r+1
			}
		}
		var loaded []int
		if c.Loaded < c.N {
			for i := range c.N {
				loaded = append(loaded, res.Detections[i][c.Loaded])
			}
		}
		rep := &registry.SimReport{Model: "dgrp", Mode: "campaign", Seed: *seed, Seconds: time.Since(start).Seconds(),
			Violations: []registry.ViolationRef{},
			Figures: map[string]any{
				"group_size": res.GroupSize, "counters": res.Counters, "readmissions": res.Readmissions,
				"requests": res.Requests, "group_changes": res.Changes, "slow_tests": res.SlowTests,
				"min_group_size": minSize, "min_group_round": minAt, "detections_of_loaded": loaded,
			}}
		var b strings.Builder
		fmt.Fprintf(&b, "dgrp campaign: n=%d zeta=%d rounds=%d F=%g seed=%d (synthetic response times, p%d loaded, alternating every %d rounds)\n",
			c.N, c.Zeta, c.Rounds, c.F, *seed, c.Loaded, c.Period)
		fmt.Fprintf(&b, "tests over the threshold: %d of %d\n", res.SlowTests, c.Rounds*c.N*(c.N-1))
		fmt.Fprintf(&b, "group changes: %d rounds of %d; smallest group %d (round %d)\n", res.Changes, c.Rounds, minSize, minAt)
		fmt.Fprintf(&b, "re-admission requests: %d; re-admissions decided by consensus: %d\n", res.Requests, res.Readmissions)
		fmt.Fprintf(&b, "final event counters:")
		for k, x := range res.Counters {
			fmt.Fprintf(&b, " p%d=%d", k, x)
		}
		b.WriteString("\n")
		if loaded != nil {
			fmt.Fprintf(&b, "detections of p%d per tester:", c.Loaded)
			for i, x := range loaded {
				fmt.Fprintf(&b, " p%d=%d", i, x)
			}
			b.WriteString("\n")
		}
		rep.Text = b.String()
		return rep, nil
	}
}
