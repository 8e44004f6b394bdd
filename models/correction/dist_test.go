package correction

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// nearestRank is the textbook nearest-rank percentile x_(⌈q·n⌉) of a
// sorted sample, written out independently of gonum.
func nearestRank(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// TestDistNearestRank: NewDist's percentiles are the nearest-rank ones and
// its mean the plain one, on samples of the sizes the campaigns use (1,
// 10, 100, 999, 1000, 1001, 5000 runs) of integer figures.
func TestDistNearestRank(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 10, 100, 999, 1000, 1001, 5000} {
		xs := make([]float64, n)
		sum := 0.0
		for i := range xs {
			xs[i] = float64(r.IntN(300))
			sum += xs[i]
		}
		d := NewDist(xs)
		s := slices.Sorted(slices.Values(xs))
		want := Dist{Mean: sum / float64(n), P99: nearestRank(s, 0.99), P999: nearestRank(s, 0.999), Max: s[n-1], Count: n}
		if d != want {
			t.Errorf("n=%d: NewDist = %+v, want %+v", n, d, want)
		}
	}
	if d := NewDist([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}); d.P99 != 10 || d.P999 != 10 || d.Mean != 5.5 {
		t.Errorf("1..10: %+v", d)
	}
	if d := NewDist(nil); d != (Dist{}) {
		t.Errorf("empty: %+v", d)
	}
}
