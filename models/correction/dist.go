package correction

import (
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Dist summarises a sample of a campaign's figures (ticks or message
// counts): mean, 99th and 99.9th percentiles and maximum, as the paper's
// Table 1 reports them.
type Dist struct {
	Mean  float64 `json:"mean"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p99.9"`
	Max   float64 `json:"max"`
	Count int     `json:"n"`
}

// NewDist summarises xs (zero Dist if empty). The percentiles are gonum's
// stat.Empirical quantile: the smallest sample x_(i) with i/n ≥ q, which
// is the nearest-rank definition x_(⌈q·n⌉). The mean is stat.Mean; the
// campaigns' figures are integers, whose sums are exact in float64 below
// 2^53, so the summation order does not matter.
func NewDist(xs []float64) Dist {
	if len(xs) == 0 {
		return Dist{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return Dist{
		Mean:  stat.Mean(s, nil),
		P99:   stat.Quantile(0.99, stat.Empirical, s, nil),
		P999:  stat.Quantile(0.999, stat.Empirical, s, nil),
		Max:   s[len(s)-1],
		Count: len(s),
	}
}
