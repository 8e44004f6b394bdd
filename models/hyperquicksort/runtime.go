package hyperquicksort

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/registry"
	hq "github.com/ftkernel/ftkernel/statemachine/hyperquicksort"
)

// RunInput is the input vector a run over real processes sorts: the last
// of those `ftcheck check hyperquicksort` explores (Input(Inputs−1): with
// the default --inputs 2, vector 1, drawn with duplicates; --inputs 1, the
// decreasing vector 0).
func (p Params) RunInput() [][]int32 { return p.Input(p.Inputs - 1) }

// NetModel is the model of `ftcheck run hyperquicksort`: N processes
// running statemachine/hyperquicksort's Node (the Process of Algorithm 1
// in log2 N sorting rounds, each begun by a call and ended by a barrier,
// the shared store replicated by STORE messages) over checker/env's FIFO
// network, with crashes (at most MaxNonRec) and the perfect detector. A
// round's non-recommended set is the set of processes a node was told are
// dead when it begins the round. The DGRP baseline only: ULFM's
// revoke/agree/shrink barrier is not run.
//
// Its properties: sorted and permutation (P-DGRP-4) over the store
// returned at the last barrier, and same-view (every two processes began
// each sorting round with the same non-recommended set). That every live
// process returns the same store at each barrier is checked by ftcheck
// run, which compares the returns.
func NetModel(p Params) (*env.Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Baseline != DGRP {
		return nil, fmt.Errorf("--baseline %v: a run has the DGRP baseline only (its barrier is not ULFM's revoke, agree and shrink)", p.Baseline)
	}
	dim, _ := hq.Dim(p.N)
	cfg := &hq.Config{N: p.N, Mutant: p.Mutant}
	input := p.RunInput()
	calls := make([]core.Input, dim)
	for k := range calls {
		calls[k] = hq.Next{Round: k}
	}
	sched := make([][]core.Input, p.N)
	for r := range sched {
		sched[r] = calls
	}
	name := fmt.Sprintf("hyperquicksort values=%d input=%d (the last of --inputs %d) store=replicated gated-rounds", p.Values, p.Inputs-1, p.Inputs)
	if p.Mutant != mutant.None {
		name += " mutant=" + string(p.Mutant)
	}
	return env.New(env.Config{
		Name: name, N: p.N, Crashes: p.MaxNonRec, Network: env.FIFO, Detector: env.DetectorPerfect, Blocking: true,
		NewNode: func(r core.Rank, _ int) core.Machine {
			nd, _ := hq.NewNode(r, cfg, input) // validated above
			return nd
		},
		Schedules:  [][][]core.Input{sched},
		Properties: netProperties(p.N, input),
		Codec:      env.Codec{Message: func(b []byte) (core.Message, error) { return hq.DecodeMessage(b, p.N) }},
	})
}

// RunParams reads the parameters of `ftcheck check hyperquicksort` (its
// flags: n, non-recommended-max, values, inputs, baseline, mutant; the
// defaults for those missing).
func RunParams(params map[string]string) (Params, error) {
	p := DefaultCheck
	ints := map[string]*int{"n": &p.N, "non-recommended-max": &p.MaxNonRec, "values": &p.Values, "inputs": &p.Inputs}
	for k, dst := range ints {
		if s, ok := params[k]; ok {
			x, err := strconv.Atoi(s)
			if err != nil {
				return p, fmt.Errorf("--%s %q: not an integer", k, s)
			}
			*dst = x
		}
	}
	if s, ok := params["baseline"]; ok {
		b, err := parseBaseline(s)
		if err != nil {
			return p, err
		}
		p.Baseline = b
	}
	p.Mutant = mutant.Name(params["mutant"])
	return p, p.Validate()
}

// NetRunner is NetModel built from the parameters of `ftcheck check
// hyperquicksort` (RunParams), as a registry runner recording those
// parameters.
func NetRunner(params map[string]string) (registry.Runner, error) {
	p, err := RunParams(params)
	if err != nil {
		return nil, err
	}
	em, err := NetModel(p)
	if err != nil {
		return nil, err
	}
	return registry.Erase(em, "hyperquicksort", params), nil
}

func netNode(w *env.World, r core.Rank) *hq.Node {
	nd, _ := w.Node(r).(*hq.Node)
	return nd
}

// netProperties are NetModel's properties over n processes sorting input.
func netProperties(n int, input [][]int32) []checker.Property[*env.World] {
	want := slices.Sorted(slices.Values(slices.Concat(input...)))
	// final is the store returned at the last barrier by the first
	// process that passed it.
	final := func(w *env.World) (hq.Lists, bool) {
		for r := range core.Rank(n) {
			if nd := netNode(w, r); nd != nil && nd.Barriers() == nd.Rounds() {
				return nd.Store(), true
			}
		}
		return nil, false
	}
	return []checker.Property[*env.World]{
		{Name: "sorted", Kind: checker.Invariant, Doc: "at the last barrier the lists by virtual rank, concatenated, are sorted (P-DGRP-4, §4.2.2)",
			Check: func(w *env.World) error {
				l, ok := final(w)
				if all := slices.Concat(l...); ok && !slices.IsSorted(all) {
					return fmt.Errorf("the lists by virtual rank are not sorted: %v", l)
				}
				return nil
			}},
		{Name: "permutation", Kind: checker.Invariant, Doc: "at the last barrier the lists by virtual rank hold the input, each value as often (P-DGRP-4: \"sem perdas\", §4.2.2)",
			Check: func(w *env.World) error {
				l, ok := final(w)
				if got := slices.Sorted(slices.Values(slices.Concat(l...))); ok && !slices.Equal(got, want) {
					return fmt.Errorf("the lists by virtual rank hold %v, the input %v", hq.FormatValues(got), hq.FormatValues(want))
				}
				return nil
			}},
		{Name: "same-view", Kind: checker.Invariant, Doc: "every two processes began each sorting round with the same non-recommended set (§4.2.2: every process holds the list at the round's start)",
			Check: func(w *env.World) error {
				var first [][]core.RankSet
				for r := range core.Rank(n) {
					if nd := netNode(w, r); nd != nil {
						first = append(first, nd.Views())
					}
				}
				for i := range first {
					for k, v := range first[i] {
						for j := range i {
							if k < len(first[j]) && !first[j][k].Equal(v) {
								return fmt.Errorf("sorting round %d began with non-recommended %v at one process, %v at another", k, first[j][k], v)
							}
						}
					}
				}
				return nil
			}},
	}
}
