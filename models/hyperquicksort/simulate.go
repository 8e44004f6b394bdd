package hyperquicksort

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	hq "github.com/ftkernel/ftkernel/statemachine/hyperquicksort"
)

// SimParams are one run of `ftcheck simulate hyperquicksort`.
type SimParams struct {
	N, Values, Input int
	Baseline         Baseline
	// NonRec is non-recommended in every sorting round (ULFM: failed
	// before the first).
	NonRec core.RankSet
	// Schedule, when not nil, replaces NonRec: Schedule[k] is the
	// non-recommended (ULFM: failed) set of the k-th sorting round; the
	// partners and substitutes reported are those of NonRec.
	Schedule []core.RankSet
}

// SimResult is what one run gives.
type SimResult struct {
	P SimParams
	// Partners[k][i] is rank i's partner (Algorithm 2) in the k-th sorting
	// round (s = log2 N − k), core.NoRank for none; only recommended ranks
	// appear.
	Partners []map[core.Rank]core.Rank
	// Substitutes maps each non-recommended rank to its substitute
	// (Algorithm 3).
	Substitutes map[core.Rank]core.Rank
	// Output is the final lists by rank; Sorted and Complete say whether
	// they are sorted across ranks and hold the whole input.
	Output           [][]int32
	Sorted, Complete bool
	// Lost is what the failed processes held (ULFM).
	Lost  []int32
	Stats Stats
}

// Simulate runs p.
func Simulate(p SimParams) (*SimResult, error) {
	dim, err := hq.Dim(p.N)
	if err != nil {
		return nil, fmt.Errorf("--n %d: want a power of two ≥ 2", p.N)
	}
	sched := p.Schedule
	if sched == nil {
		sched = make([]core.RankSet, dim)
		for k := range sched {
			sched[k] = p.NonRec
		}
	}
	m, err := NewModel(Params{N: p.N, MaxNonRec: p.N - 1, Values: p.Values, Inputs: p.Input + 1, Baseline: p.Baseline, Schedule: sched})
	if err != nil {
		return nil, err
	}
	res := &SimResult{P: p, Substitutes: map[core.Rank]core.Rank{}}
	for k := range dim {
		part := map[core.Rank]core.Rank{}
		for i := range core.Rank(p.N) {
			if !p.NonRec.Has(i) {
				part[i], _ = hq.Partner(i, dim-k, p.N, p.NonRec) // n and s valid
			}
		}
		res.Partners = append(res.Partners, part)
	}
	p.NonRec.Each(func(r core.Rank) { res.Substitutes[r], _ = hq.Substitute(r, p.N, p.NonRec) })
	w, err := Run(m, p.Input)
	if w == nil {
		return nil, err
	}
	res.Output, _ = m.Output(w)
	res.Stats, res.Lost = w.Stats(), w.lost
	res.Sorted = w.round == dim && propHolds(m, Sorted, w)
	res.Complete = w.round == dim && propHolds(m, Permutation, w)
	return res, nil
}

func propHolds(m *Model, name string, w *World) bool {
	for _, p := range m.props {
		if p.Name == name {
			return p.Check(w) == nil
		}
	}
	return false
}

func rankOrNull(r core.Rank) any {
	if r == core.NoRank {
		return nil
	}
	return int(r)
}

// Figures are the run's JSON figures: partners (per sorting round, s from
// log2 N down to 1: {"s", "partner": rank → partner or null}),
// substitutes (rank → substitute or null), sorted, complete, lost and the
// run's counts.
func (r *SimResult) Figures() map[string]any {
	var partners []map[string]any
	dim := len(r.Partners)
	for k, part := range r.Partners {
		by := map[string]any{}
		for i, q := range part {
			by[strconv.Itoa(int(i))] = rankOrNull(q)
		}
		partners = append(partners, map[string]any{"s": dim - k, "partner": by})
	}
	subs := map[string]any{}
	for i, q := range r.Substitutes {
		subs[strconv.Itoa(int(i))] = rankOrNull(q)
	}
	lost := r.Lost
	if lost == nil {
		lost = []int32{}
	}
	s := r.Stats
	return map[string]any{
		"n": r.P.N, "values": r.P.Values, "baseline": r.P.Baseline.String(), "non_recommended": r.P.NonRec.Ranks(),
		"partners": partners, "substitutes": subs, "sorted": r.Sorted, "complete": r.Complete,
		"output": r.Output, "lost": lost,
		"rounds": dim, "barriers": s.Barriers, "pivot_messages": s.Pivots, "list_messages": s.Lists,
		"values_moved": s.Moved, "store_values_read": s.Read, "store_values_saved": s.Saved, "local_handovers": s.Local,
		"agreements": s.Agreements, "agreement_messages": s.AgreementMessages,
	}
}

// Text is the run for a person.
func (r *SimResult) Text() string {
	var b strings.Builder
	what := "non-recommended"
	if r.P.Baseline == ULFM {
		what = "failed"
	}
	fmt.Fprintf(&b, "hyperquicksort n=%d values=%d baseline=%v, %s %v\n", r.P.N, r.P.Values, r.P.Baseline, what, r.P.NonRec)
	dim := len(r.Partners)
	for k, part := range r.Partners {
		fmt.Fprintf(&b, "  s=%d partners:", dim-k)
		for i := range core.Rank(r.P.N) {
			if q, ok := part[i]; ok {
				if q == core.NoRank {
					fmt.Fprintf(&b, " %d→—", i)
				} else {
					fmt.Fprintf(&b, " %d→%d", i, q)
				}
			}
		}
		b.WriteString("\n")
	}
	if len(r.Substitutes) > 0 {
		b.WriteString("  substitutes:")
		for _, i := range r.P.NonRec.Ranks() {
			fmt.Fprintf(&b, " %d→%d", i, r.Substitutes[i])
		}
		b.WriteString("\n")
	}
	if total := r.P.N * r.P.Values; total <= 64 {
		fmt.Fprintf(&b, "  output by rank %s: sorted %v, whole input %v", hq.FormatLists(r.Output), r.Sorted, r.Complete)
	} else {
		sizes := make([]string, len(r.Output))
		for v, l := range r.Output {
			sizes[v] = strconv.Itoa(len(l))
		}
		fmt.Fprintf(&b, "  output list sizes by rank %s (--json gives the lists): sorted %v, whole input %v", strings.Join(sizes, " "), r.Sorted, r.Complete)
	}
	if len(r.Lost) > 64 {
		fmt.Fprintf(&b, ", lost %d values", len(r.Lost))
	} else if len(r.Lost) > 0 {
		fmt.Fprintf(&b, ", lost %s", hq.FormatValues(r.Lost))
	}
	s := r.Stats
	fmt.Fprintf(&b, "\n  %d rounds, %d pivot and %d list messages, %d values moved, %d handed over locally, store: %d values read, %d saved",
		dim, s.Pivots, s.Lists, s.Moved, s.Local, s.Read, s.Saved)
	if r.P.Baseline == ULFM {
		fmt.Fprintf(&b, "; barriers with failures: %.0f agreements, %.0f messages", s.Agreements, s.AgreementMessages)
	}
	b.WriteString("\n")
	return b.String()
}
