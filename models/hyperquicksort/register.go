package hyperquicksort

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	hq "github.com/ftkernel/ftkernel/statemachine/hyperquicksort"
)

func init() {
	registry.Register(&registry.Protocol{
		Name:     "hyperquicksort",
		Doc:      "Hyperquicksort over the DGRP (de Camargo 2017 §4.2, Algorithms 1–3): partners and substitutes per sorting round, lists through a shared store; --baseline ulfm excludes failed processes for good (§4.3.2)",
		Define:   defineCheck,
		Mutants:  mutantInfos(),
		Simulate: defineSimulate,
	})
}

// Ranges of the flags.
const (
	MaxCheckN  = 8
	MaxValues  = 8
	MaxInputs  = 16
	MaxSimN    = 64
	MaxSimVals = 1 << 16
)

// DefaultCheck are the defaults of `ftcheck check hyperquicksort`.
var DefaultCheck = Params{N: 4, MaxNonRec: 3, Values: 2, Inputs: 2}

func parseBaseline(s string) (Baseline, error) {
	switch s {
	case "dgrp":
		return DGRP, nil
	case "ulfm":
		return ULFM, nil
	}
	return DGRP, fmt.Errorf("--baseline %q: want dgrp or ulfm", s)
}

func defineCheck(fs *flag.FlagSet) registry.Builder {
	d := DefaultCheck
	n := fs.Int("n", d.N, fmt.Sprintf("number of processes N, a power of two, 2 … %d", MaxCheckN))
	k := fs.Int("non-recommended-max", d.MaxNonRec, "K: the environment picks, at every sorting round, any set of at most K non-recommended processes (ulfm: at most K failures in the run), 0 … N−1")
	v := fs.Int("values", d.Values, fmt.Sprintf("values each process starts with, 1 … %d", MaxValues))
	in := fs.Int("inputs", d.Inputs, fmt.Sprintf("input vectors explored (0: decreasing; k ≥ 1: seeded with k, duplicates included), 1 … %d", MaxInputs))
	base := fs.String("baseline", "dgrp", "dgrp: non-recommended processes sit a round out, lists through the shared store; ulfm: failed processes are excluded for good, no store (§4.3.2)")
	mut := fs.String("mutant", "", "test-only broken variant (see ftcheck list)")
	return func() (registry.Runner, error) {
		if err := flagcheck.First(
			flagcheck.Int("n", int64(*n), 2, MaxCheckN, ""),
			flagcheck.Int("values", int64(*v), 1, MaxValues, ""),
			flagcheck.Int("inputs", int64(*in), 1, MaxInputs, ""),
		); err != nil {
			return nil, err
		}
		b, err := parseBaseline(*base)
		if err != nil {
			return nil, err
		}
		m, err := NewModel(Params{N: *n, MaxNonRec: *k, Values: *v, Inputs: *in, Baseline: b, Mutant: mutant.Name(*mut)})
		if err != nil {
			return nil, err
		}
		own := map[string]string{}
		for _, name := range []string{"n", "non-recommended-max", "values", "inputs", "baseline", "mutant"} {
			own[name] = fs.Lookup(name).Value.String()
		}
		return registry.Erase(m, "hyperquicksort", own), nil
	}
}

func mutantInfos() []registry.MutantInfo {
	docs := map[mutant.Name]string{
		hq.MutantPartnerXor:  "a recommended process sends its half to i ⊕ 2^(s−1) even when that process is non-recommended (terminates)",
		hq.MutantSkipStore:   "a substitute plays a non-recommended rank from its own stale copy and saves nothing to the shared store (permutation)",
		hq.MutantLocalPivot:  "every rank splits by its own median instead of its cluster root's pivot (sorted)",
		MutantULFMReadsStore: "the ULFM baseline reads the failed processes' lists from a shared store it does not have (loses-failed; with --baseline ulfm)",
	}
	return registry.MutantInfos(Mutants(), docs)
}

// parseRanks parses "4,5" (empty: none) into a set of ranks below n.
func parseRanks(flagName, s string, n int) (core.RankSet, error) {
	var set core.RankSet
	if strings.TrimSpace(s) == "" {
		return set, nil
	}
	for _, part := range strings.Split(s, ",") {
		r, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || r < 0 || r >= n {
			return set, fmt.Errorf("--%s %q: %q is not a rank in 0 … %d", flagName, s, part, n-1)
		}
		set.Add(core.Rank(r))
	}
	return set, nil
}

// defineSimulate is `ftcheck simulate hyperquicksort`: one run with a
// fixed non-recommended (or failed) set in every sorting round, reporting
// the partners and substitutes of Algorithms 2 and 3, whether the output
// is sorted and complete, and what the run cost.
func defineSimulate(fs *flag.FlagSet) registry.SimBuilder {
	n := fs.Int("n", 8, fmt.Sprintf("number of processes, a power of two, 2 … %d", MaxSimN))
	nonRec := fs.String("non-recommended", "", "comma-separated ranks non-recommended in every sorting round (ulfm: failed before the first)")
	v := fs.Int("values", 2, fmt.Sprintf("values each process starts with, 1 … %d", MaxSimVals))
	seed := fs.Uint64("seed", 0, "input vector: 0 decreasing, k ≥ 1 drawn from a PCG seeded with k")
	base := fs.String("baseline", "dgrp", "dgrp or ulfm (see check)")
	scenario := fs.String("scenario", "", "fig4.14: Fig. 4.14's runs (k = 0, 1, n/2, n−1 unstable; ULFM, DGRP without re-admission, DGRP) priced by the cost model")
	cm := CostModel{}
	fs.Float64Var(&cm.Message, "cost-message", 1, "fig4.14: cost of a message")
	fs.Float64Var(&cm.Value, "cost-value", 1, "fig4.14: cost of a value sent")
	fs.Float64Var(&cm.Store, "cost-store", 1, "fig4.14: cost of a value read from or saved to the shared store")
	return func(ctx context.Context, progress func(string)) (*registry.SimReport, error) {
		if err := flagcheck.First(
			flagcheck.Int("n", int64(*n), 2, MaxSimN, ""),
			flagcheck.Int("values", int64(*v), 1, MaxSimVals, ""),
			flagcheck.Uint("seed", *seed, 0, MaxInputs*1024, ""),
		); err != nil {
			return nil, err
		}
		b, err := parseBaseline(*base)
		if err != nil {
			return nil, err
		}
		set, err := parseRanks("non-recommended", *nonRec, *n)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		switch *scenario {
		case "":
		case "fig4.14":
			rows, err := Fig414(*n, *v, int(*seed), cm)
			if err != nil {
				return nil, err
			}
			return &registry.SimReport{Model: "hyperquicksort", Mode: "fig4.14", Seed: *seed, Seconds: time.Since(start).Seconds(),
				Violations: []registry.ViolationRef{}, Figures: map[string]any{"rows": rows, "cost_model": cm},
				Text: Fig414Text(rows, cm)}, nil
		default:
			return nil, fmt.Errorf("--scenario %q: want fig4.14 or nothing", *scenario)
		}
		res, err := Simulate(SimParams{N: *n, Values: *v, Input: int(*seed), Baseline: b, NonRec: set})
		if err != nil {
			return nil, err
		}
		rep := &registry.SimReport{Model: "hyperquicksort", Mode: "run", Seed: *seed, Seconds: time.Since(start).Seconds(),
			Violations: []registry.ViolationRef{}, Figures: res.Figures(), Text: res.Text()}
		return rep, nil
	}
}
