package diagnosis

import (
	"flag"
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	dg "github.com/ftkernel/ftkernel/statemachine/diagnosis"
)

// mutantsOf lists the mutants that change each algorithm.
var mutantsOf = map[string][]registry.MutantInfo{
	ADSD: {
		{Name: string(dg.MutantCopyFromFaulty), Doc: "a node copies TESTED_UP from the first node it tests, even one it tested faulty"},
		{Name: string(dg.MutantDiagnoseSkip), Doc: "Diagnose skips the first pointer of the chain"},
	},
	HiADSD: {
		{Name: string(dg.MutantClusterNoXOR), Doc: "c(i, s) with + instead of ⊕: (i + 2^(s−1) + k) mod n"},
	},
	VCube: {
		{Name: string(dg.MutantClusterNoXOR), Doc: "c(i, s) with + instead of ⊕: (i + 2^(s−1) + k) mod n"},
		{Name: string(dg.MutantTesterOwnCluster), Doc: "the tester rule reads c(i, s) instead of c(j, s)"},
		{Name: string(dg.MutantTimestampGE), Doc: "the merge accepts a timestamp ≥ the local one instead of >"},
		{Name: string(dg.MutantRoundTwoDelta), Doc: "--timing bounded: a round lasts 2Δ ticks instead of 2Δ + 1, so its deadline can pass a reply still in time"},
		{Name: string(dg.MutantSilenceFaultFree), Doc: "--timing bounded: a tested node that does not answer by the deadline is left as it was believed instead of tested faulty"},
	},
}

var docs = map[string]string{
	ADSD:   "Adaptive-DSD (Bianchini and Buskens; de Camargo's thesis §3.3): each fault-free node tests i+1, i+2, … until a fault-free one and copies its TESTED_UP",
	HiADSD: "Hi-ADSD (Duarte and Nanya; thesis §3.4): in round s node i tests c(i, s) in order until a fault-free node and copies that cluster's diagnosis",
	VCube:  "VCube (Duarte, Bona and Ruoso; thesis §3.4): i tests j ∈ c(i, s) iff i is the first node of c(j, s) it believes fault-free; merges by timestamp",
}

func init() {
	for _, alg := range []string{ADSD, HiADSD, VCube} {
		p := &registry.Protocol{Name: alg, Doc: docs[alg], Define: define(alg), Mutants: mutantsOf[alg]}
		if alg != HiADSD {
			p.Simulate = defineSimulate(alg)
		}
		registry.Register(p)
	}
}

func define(alg string) func(fs *flag.FlagSet) registry.Builder {
	return func(fs *flag.FlagSet) registry.Builder {
		n := fs.Int("n", 8, fmt.Sprintf("number of nodes, 2 … %d (hiadsd, vcube: a power of two)", MaxCheckN))
		fmax := fs.Int("faulty-max", -1, "largest fault set at the start and after each event, 0 … n−1 (default n−1)")
		var events int
		fs.IntVar(&events, "events", 0, fmt.Sprintf("state changes after the start, 0 … %d (0: a fixed fault set)", MaxEvents))
		mut := fs.String("mutant", "", "a broken variant (ftcheck list)")
		var net func() (registry.Runner, bool, error)
		if alg == VCube {
			net = defineNet(fs, n, mut)
		}
		return func() (registry.Runner, error) {
			if net != nil {
				if r, ok, err := net(); ok {
					return r, err
				}
			}
			if err := flagcheck.First(flagcheck.Int("n", int64(*n), 2, MaxCheckN, ""),
				flagcheck.Int("events", int64(events), 0, MaxEvents, "")); err != nil {
				return nil, err
			}
			fm := *fmax
			if fm == -1 {
				fm = *n - 1
			}
			if err := flagcheck.Int("faulty-max", int64(fm), 0, int64(*n-1), ""); err != nil {
				return nil, err
			}
			if *mut != "" && !knownMutant(alg, *mut) {
				return nil, registry.ErrUnknownMutant(alg, *mut)
			}
			if slices.Contains(netOnlyMutants, mutant.Name(*mut)) {
				return nil, fmt.Errorf("--mutant %s: %w: the network model (--timing bounded)", *mut, registry.ErrMutantNotHere)
			}
			m, err := New(alg, *n, fm, events, mutant.Name(*mut))
			if err != nil {
				return nil, err
			}
			return registry.Erase[*State](m, alg, map[string]string{"n": fmt.Sprint(*n), "faulty-max": fmt.Sprint(fm),
				"events": fmt.Sprint(events), "mutant": *mut}), nil
		}
	}
}

// MaxEvents bounds --events.
const MaxEvents = 8

func knownMutant(alg, name string) bool {
	for _, m := range mutantsOf[alg] {
		if m.Name == name {
			return true
		}
	}
	return false
}
