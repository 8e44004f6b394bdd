package hyperquicksort

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	hq "github.com/ftkernel/ftkernel/statemachine/hyperquicksort"
)

// Property names, as ftcheck --property takes them.
const (
	Terminates  = "terminates"   // every run ends all log2 n sorting rounds
	Sorted      = "sorted"       // P-DGRP-4, first half
	Permutation = "permutation"  // P-DGRP-4, second half
	LosesFailed = "loses-failed" // ULFM: the output is the input less the failed processes' lists
)

// Properties are P-DGRP-4 (spec §3.6: "manter a ordenação sem perdas com
// até n − 1 processos não-recomendados") split in two, termination, and
// for the ULFM baseline what it keeps of the input. (An ULFM barrier
// whose agreement does not stabilize is a model error, reported as such:
// ERA's properties and mutants are models/era's.)
func Properties(m *Model) []checker.Property[*World] {
	ulfm := m.p.Baseline == ULFM
	ps := []checker.Property[*World]{
		{Name: Terminates, Kind: checker.Quiescence,
			Doc: "a run stops only when all log2 n sorting rounds are over (no process waits for ever)",
			Check: func(w *World) error {
				if w.round < m.dim {
					return fmt.Errorf("stuck in sorting round %d (s=%d) with non-recommended %v: %v", w.round+1, m.dim-w.round, w.nonRec, stuck(m, w))
				}
				return nil
			}},
		{Name: Sorted, Kind: checker.Quiescence,
			Doc: "P-DGRP-4 (§4.2.1): at the end every list is sorted and the largest value of rank i is ≤ the smallest of rank i+1",
			Check: func(w *World) error {
				out, ok := m.Output(w)
				if !ok {
					return nil
				}
				prev, from := int32(0), -1
				for v, l := range out {
					if !slices.IsSorted(l) {
						return fmt.Errorf("rank %d's list %s is not sorted", v, hq.FormatValues(l))
					}
					if len(l) == 0 {
						continue
					}
					if from >= 0 && l[0] < prev {
						return fmt.Errorf("rank %d ends with %d > %d, the first value of rank %d (output %s)", from, prev, l[0], v, hq.FormatLists(out))
					}
					prev, from = l[len(l)-1], v
				}
				return nil
			}},
		{Name: Permutation, Kind: checker.Quiescence, ExpectFail: ulfm,
			Doc: "P-DGRP-4 (§4.2.2, \"sem perdas\"): at the end the lists hold the input, each value as many times as in the input",
			Check: func(w *World) error {
				out, ok := m.Output(w)
				if !ok {
					return nil
				}
				return sameValues(slices.Concat(out...), slices.Concat(m.inputs[w.input]...), "input")
			}},
	}
	if ulfm {
		ps = append(ps,
			checker.Property[*World]{Name: LosesFailed, Kind: checker.Quiescence,
				Doc: "ULFM baseline (§4.3.2): at the end the lists hold the input less exactly the lists the failed processes held when they failed",
				Check: func(w *World) error {
					out, ok := m.Output(w)
					if !ok {
						return nil
					}
					rest, err := minus(slices.Concat(m.inputs[w.input]...), w.lost)
					if err != nil {
						return err
					}
					return sameValues(slices.Concat(out...), rest, "input less the failed processes' lists")
				}})
	}
	return ps
}

// Properties lists the model's properties.
func (m *Model) Properties() []checker.Property[*World] { return m.props }

// sameValues reports whether got and want hold the same values the same
// number of times.
func sameValues(got, want []int32, what string) error {
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		return fmt.Errorf("the output holds %s, the %s %s", hq.FormatValues(g), what, hq.FormatValues(w))
	}
	return nil
}

// minus is the multiset a less b (b must be contained in a).
func minus(a, b []int32) ([]int32, error) {
	out := slices.Clone(a)
	for _, x := range b {
		k := slices.Index(out, x)
		if k < 0 {
			return nil, fmt.Errorf("lost value %d is not in the input", x)
		}
		out = slices.Delete(out, k, k+1)
	}
	return out, nil
}

// stuck names the processes still in the round.
func stuck(m *Model, w *World) string {
	var waiting []string
	for _, p := range w.procs {
		if p.Active() {
			waiting = append(waiting, fmt.Sprintf("p%d", p.Rank()))
		}
	}
	if len(waiting) == 0 {
		return "no process active"
	}
	return strings.Join(waiting, ", ") + " wait for a list"
}
