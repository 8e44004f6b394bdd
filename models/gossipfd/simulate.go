package gossipfd

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// SimRun runs the analysis chosen by the flags DefineSimulate declared; it
// returns the JSON figures (merged into `ftcheck simulate --json`'s object)
// and a human-readable report.
type SimRun func() (figures map[string]any, text string, err error)

// DefineSimulate declares the flags of `ftcheck simulate gossipfd` on fs:
//
//	--variant random|rr|brr|dbrr --n N, then exactly one analysis:
//	--cleanup-min                      dissemination rounds (cleanup_rounds_best, cleanup_rounds_worst)
//	--fd-failure --f F --exact         FD-failure probability by enumeration (p_cut, p_disconnected)
//	--fd-failure --f F --trials T --seed S   … by Monte Carlo, with 95 % intervals
//	--detection                        Fig. 13 detection time (--t-gossip, --ticks-per-round, --delay-min/max, --ping, --ping-timeout, --cleanup)
//	--load --round R                   gossip messages and bytes in round R
//	--min-cleanup --crashes K          smallest T_cleanup without false suspicion
//	--fig12 PATH                       the Fig. 12 analogue as SVG (and PATH.json)
func DefineSimulate(fs *flag.FlagSet) SimRun {
	variant := fs.String("variant", "brr", "destination function: random, rr, brr or dbrr")
	n := fs.Int("n", 8, fmt.Sprintf("number of hosts, 2 … %d (--min-cleanup: … 64; --fd-failure --exact: … %d)", fd.MaxN, MaxExactN))
	cleanupMin := fs.Bool("cleanup-min", false, "rounds for a heartbeat to reach every host, best and worst over the phase")
	fdFailure := fs.Bool("fd-failure", false, "FD-failure probability (§5.2, Fig. 12), readings A (p_cut) and B (p_disconnected)")
	f := fs.Float64("f", WeibullF(0.1, 1), "probability that a host fails (Eq. 1; default δ = 1, λt = 0.1)")
	exact := fs.Bool("exact", false, "with --fd-failure: enumerate every crash set (n ≤ 24)")
	trials := fs.Int64("trials", 0, fmt.Sprintf("with --fd-failure: Monte Carlo trials, 0 … %d", MaxTrials))
	seed := fs.Uint64("seed", 1, "seed of the Monte Carlo draws, the random plan and the message delays")
	detection := fs.Bool("detection", false, "Fig. 13: time from a crash to its suspicion and declaration")
	tGossip := fs.Float64("t-gossip", 0.5, "with --detection: T_gossip in seconds, > 0")
	ticks := fs.Uint64("ticks-per-round", 50, fmt.Sprintf("with --detection: ticks per T_gossip, 1 … %d", MaxTicks))
	delayMin := fs.Uint64("delay-min", 1, fmt.Sprintf("with --detection: least message delay, ticks, 0 … %d", MaxTicks))
	delayMax := fs.Uint64("delay-max", 1, fmt.Sprintf("with --detection: largest message delay, ticks, 1 … %d", MaxTicks))
	ping := fs.Bool("ping", true, "with --detection: the consensus (ping) phase of §5.3")
	pingTimeout := fs.Uint64("ping-timeout", 25, fmt.Sprintf("with --detection: ping timeout, ticks, 1 … %d", MaxTicks))
	cleanup := fs.Int("cleanup", 0, fmt.Sprintf("with --detection: T_cleanup in rounds, 0 … %d (0: the paper's setting)", MaxRounds))
	load := fs.Bool("load", false, "gossip messages and bytes per round")
	round := fs.Int("round", 40, fmt.Sprintf("with --load: the round measured, 1 … %d", MaxRounds))
	minCleanup := fs.Bool("min-cleanup", false, "smallest T_cleanup without a false suspicion, all crash sets and crash rounds")
	crashes := fs.Int("crashes", 1, "with --min-cleanup: number of crashes, 0 … n-2")
	fig12 := fs.String("fig12", "", "write the Fig. 12 analogue to this SVG file (and its data to FILE.json)")
	return func() (map[string]any, string, error) {
		if err := simSizes(*n, *trials, *ticks, *delayMin, *delayMax, *pingTimeout, *cleanup, *round, *crashes, *minCleanup); err != nil {
			return nil, "", err
		}
		if !(*tGossip > 0) || math.IsInf(*tGossip, 0) {
			return nil, "", fmt.Errorf("--t-gossip %v: want a positive number of seconds", *tGossip)
		}
		v, err := fd.ParseVariant(*variant)
		if err != nil {
			return nil, "", err
		}
		chosen := 0
		for _, b := range []bool{*cleanupMin, *fdFailure, *detection, *load, *minCleanup, *fig12 != ""} {
			if b {
				chosen++
			}
		}
		if chosen != 1 {
			return nil, "", fmt.Errorf("choose exactly one of --cleanup-min, --fd-failure, --detection, --load, --min-cleanup, --fig12")
		}
		var out any
		switch {
		case *cleanupMin:
			out, err = CleanupMin(v, *n, *seed)
		case *fdFailure:
			switch {
			case *exact == (*trials > 0):
				return nil, "", fmt.Errorf("--fd-failure needs exactly one of --exact and --trials T")
			case *exact:
				out, err = FDFailureExact(v, *n, *f)
			default:
				out, err = FDFailureMonteCarlo(v, *n, *f, *trials, *seed)
			}
		case *detection:
			out, err = Detection(DetectionConfig{Variant: v, N: *n, TGossipSec: *tGossip, TicksPerRound: *ticks,
				DelayMin: *delayMin, DelayMax: *delayMax, Seed: *seed, Cleanup: *cleanup, Ping: *ping,
				PingTimeout: *pingTimeout, CrashSec: 20})
		case *load:
			out, err = Load(v, *n, *round, *seed)
		case *minCleanup:
			out, err = MinCleanup(v, *n, *crashes, *seed)
		default:
			t := *trials
			if t == 0 {
				t = 200000
			}
			var rows []Fig12Row
			rows, err = Fig12(*f, 20, []int{24, 32, 48, 64, 96, 128, 192, 256}, t, *seed)
			if err == nil {
				var svg []byte
				if svg, err = Fig12SVG(rows, *f); err == nil {
					err = os.WriteFile(*fig12, svg, 0o644)
				}
				data, _ := json.MarshalIndent(rows, "", " ")
				if err == nil {
					err = os.WriteFile(*fig12+".json", data, 0o644)
				}
			}
			out = map[string]any{"fig12": *fig12, "rows": len(rows)}
		}
		if err != nil {
			return nil, "", err
		}
		return figures(out)
	}
}

// figures turns a result struct into its JSON object and a text report of
// one "key: value" line per field.
func figures(v any) (map[string]any, string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, "", err
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, "", err
	}
	var s strings.Builder
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&s, "%s: %s\n", k, figureText(m[k]))
	}
	return m, s.String(), nil
}

// figureText formats one JSON figure for people: a list as "[a, b]", an
// object as "{k: v, …}".
func figureText(v any) string {
	switch v := v.(type) {
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = figureText(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + figureText(v[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case nil:
		return "none"
	}
	return fmt.Sprint(v)
}
