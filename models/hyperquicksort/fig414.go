package hyperquicksort

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	hq "github.com/ftkernel/ftkernel/statemachine/hyperquicksort"
)

// The variants of Fig. 4.14.
const (
	VariantULFM       = "ulfm"            // k processes fail before the first sorting round, for good
	VariantNoReadmit  = "dgrp-no-readmit" // "DGRP sem recuperação": k non-recommended from the first round on
	VariantDGRP       = "dgrp"            // k non-recommended in the first sorting round, re-admitted after it
	defaultStoreWeigh = 1.0
)

// Fig414Row is one bar of Fig. 4.14: a variant with k unstable processes
// (the k highest ranks).
type Fig414Row struct {
	Variant string  `json:"variant"`
	K       int     `json:"k"`
	Sorted  bool    `json:"sorted"`
	Lost    int     `json:"values_lost"`
	Stats   Stats   `json:"stats"`
	Cost    float64 `json:"cost"`
}

// CostModel prices a run: every message (pivot, list or agreement message)
// costs Message, every value sent in a list Value, every value read from or
// saved to the shared store Store (all in one time unit).
type CostModel struct {
	Message, Value, Store float64
}

// Cost is the price of s under c.
func (c CostModel) Cost(s Stats) float64 {
	msgs := float64(s.Pivots+s.Lists) + s.AgreementMessages
	return c.Message*msgs + c.Value*float64(s.Moved) + c.Store*float64(s.Read+s.Saved)
}

// Fig414 runs Fig. 4.14's scenarios for n processes of v values each
// (input seed): k = 0, 1, n/2 and n − 1 unstable processes (the k highest
// ranks), for each variant, priced by c.
func Fig414(n, v, seed int, c CostModel) ([]Fig414Row, error) {
	dim, err := hq.Dim(n)
	if err != nil {
		return nil, fmt.Errorf("--n %d: want a power of two ≥ 2", n)
	}
	var out []Fig414Row
	for _, k := range []int{0, 1, n / 2, n - 1} {
		var unstable core.RankSet
		for r := n - k; r < n; r++ {
			unstable.Add(core.Rank(r))
		}
		for _, variant := range []string{VariantULFM, VariantNoReadmit, VariantDGRP} {
			sp := SimParams{N: n, Values: v, Input: seed, Schedule: make([]core.RankSet, dim)}
			for r := range sp.Schedule {
				if variant != VariantDGRP || r == 0 {
					sp.Schedule[r] = unstable
				}
			}
			if variant == VariantULFM {
				sp.Baseline = ULFM
			}
			res, err := Simulate(sp)
			if err != nil {
				return nil, err
			}
			out = append(out, Fig414Row{Variant: variant, K: k, Sorted: res.Sorted, Lost: len(res.Lost), Stats: res.Stats, Cost: c.Cost(res.Stats)})
		}
	}
	return out, nil
}

// Fig414Text formats the rows, with each DGRP variant's cost over ULFM's
// at the same k.
func Fig414Text(rows []Fig414Row, c CostModel) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cost = %g·messages + %g·values sent + %g·values through the store\n", c.Message, c.Value, c.Store)
	fmt.Fprintf(&b, "%-16s %4s %6s %5s %6s %6s %6s %6s %6s %9s %6s %8s %8s\n", "variant", "k", "sorted", "lost", "pivots", "lists", "sent", "read", "saved", "agreemsgs", "span", "cost", "vs ulfm")
	base := map[int]float64{}
	for _, r := range rows {
		if r.Variant == VariantULFM {
			base[r.K] = r.Cost
		}
	}
	for _, r := range rows {
		s := r.Stats
		fmt.Fprintf(&b, "%-16s %4d %6v %5d %6d %6d %6d %6d %6d %9.0f %6d %8.0f %+7.1f%%\n", r.Variant, r.K, r.Sorted, r.Lost, s.Pivots, s.Lists, s.Moved, s.Read, s.Saved, s.AgreementMessages, s.Span, r.Cost, 100*(r.Cost/base[r.K]-1))
	}
	return b.String()
}
