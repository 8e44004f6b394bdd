package diagnosis

import (
	"flag"
	"fmt"

	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	dg "github.com/ftkernel/ftkernel/statemachine/diagnosis"
)

// netOnlyMutants are the mutants of VCube's messages and deadline, which only the network
// model (--timing bounded) has.
var netOnlyMutants = []mutant.Name{dg.MutantRoundTwoDelta, dg.MutantSilenceFaultFree}

// Bounds of the network model's flags.
const (
	MaxNetN      = 16
	MaxNetDelta  = 8
	MaxNetRounds = 100000
)

// defineNet adds vcube's flags of the network model: --timing rounds (the round model, every
// fault set: New) or bounded (VCubeNode in checker/env's bounded delay: NewEnvModel), --delta,
// --crashes, --max-rounds, --detect-bound. The builder it returns reports ok = false under
// --timing rounds, where the round model's builder goes on.
func defineNet(fs *flag.FlagSet, n *int, mut *string) func() (registry.Runner, bool, error) {
	timing := fs.String("timing", "rounds", "rounds (the synchronous round model over every fault set) or bounded (VCube over a network of processes "+
		"in checker/env's bounded delay: tests are TEST/REPLY messages, rounds of 2Δ+1 ticks, crashes at any step; what ftcheck run vcube runs)")
	delta := fs.Int("delta", 1, fmt.Sprintf("with --timing bounded: message delay bound Δ in ticks, 1 … %d", MaxNetDelta))
	crashes := fs.Int("crashes", 1, "with --timing bounded: crash budget, 0 … n−1")
	maxRounds := fs.Int("max-rounds", 0, fmt.Sprintf("with --timing bounded: test rounds each node runs, 0 … %d (0: the detect bound + log2 n + 1, so that a crash in any round of the first cycle is checked)", MaxNetRounds))
	bound := fs.Int("detect-bound", 0, "with --timing bounded: completeness bound in rounds after the round of a crash, 0 … 1000 (0: (log2 n)² + 1)")
	return func() (registry.Runner, bool, error) {
		switch *timing {
		case "rounds":
			return nil, false, nil
		case "bounded":
		default:
			return nil, true, fmt.Errorf("--timing %q: want rounds or bounded", *timing)
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for _, f := range []string{"faulty-max", "events"} {
			if set[f] {
				return nil, true, fmt.Errorf("--%s is a flag of the round model (--timing rounds); --timing bounded takes --crashes", f)
			}
		}
		if err := flagcheck.First(flagcheck.Int("n", int64(*n), 2, MaxNetN, ""),
			flagcheck.Int("delta", int64(*delta), 1, MaxNetDelta, ""),
			flagcheck.Int("crashes", int64(*crashes), 0, int64(*n-1), ""),
			flagcheck.Int("max-rounds", int64(*maxRounds), 0, MaxNetRounds, ""),
			flagcheck.Int("detect-bound", int64(*bound), 0, 1000, "")); err != nil {
			return nil, true, err
		}
		if *mut != "" && !knownMutant(VCube, *mut) {
			return nil, true, registry.ErrUnknownMutant(VCube, *mut)
		}
		b := *bound
		if b == 0 {
			b = DefaultDetectBound(*n)
		}
		rounds := uint64(*maxRounds)
		if rounds == 0 {
			rounds = uint64(b + LogN(*n) + 1)
		}
		m, err := NewEnvModel(EnvParams{
			Node:    dg.VCubeNodeConfig{N: *n, Delta: uint64(*delta), MaxRounds: rounds, Mutant: mutant.Name(*mut)},
			Crashes: *crashes, DetectBound: b,
		})
		if err != nil {
			return nil, true, err
		}
		return registry.Erase(m, VCube, map[string]string{"timing": "bounded", "n": fmt.Sprint(*n), "delta": fmt.Sprint(*delta),
			"crashes": fmt.Sprint(*crashes), "max-rounds": fmt.Sprint(*maxRounds), "detect-bound": fmt.Sprint(*bound), "mutant": *mut}), true, nil
	}
}
