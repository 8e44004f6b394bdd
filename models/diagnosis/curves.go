package diagnosis

import (
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/ftkernel/ftkernel/core"
)

// CurvePoint is one algorithm at one n over one family of fault sets.
type CurvePoint struct {
	Alg string
	N   int
	// Family is "random" (the mean over random fault sets) or "worst" (the worst fault set
	// found: every fault set for n ≤ 16, else the worst of the random ones and of the
	// candidates WorstCandidates).
	Family string
	// LatencyRounds is the test rounds from the start to a correct diagnosis at every fault-free
	// node (mean, or the worst).
	LatencyRounds float64
	// TestsPerRound is the tests per round once converged, averaged over one cycle of log2 n
	// rounds (one round for Adaptive-DSD) (mean, or the worst).
	TestsPerRound float64
	// WorstLatencySet and WorstTestsSet are the fault sets of the worst values (Family "worst").
	WorstLatencySet, WorstTestsSet []core.Rank
}

// WorstCandidates are fault sets tried beside random ones for n > 16: node 0 alone (Adaptive-
// DSD's information travels the whole ring), the upper half (every node of the lower half tests
// the whole upper half in Hi-ADSD's last round), every node but 0, every odd node.
func WorstCandidates(n int) [][]core.Rank {
	var upper, allBut0, odd []core.Rank
	for r := core.Rank(1); int(r) < n; r++ {
		if int(r) >= n/2 {
			upper = append(upper, r)
		}
		allBut0 = append(allBut0, r)
		if r%2 == 1 {
			odd = append(odd, r)
		}
	}
	return [][]core.Rank{{0}, upper, allBut0, odd}
}

// measureSet returns the latency and the mean tests per round of one fault set.
func measureSet(alg string, n int, f []core.Rank) (int, float64, error) {
	run, err := Measure(alg, n, f, "", MaxRounds(n))
	if err != nil {
		return 0, 0, err
	}
	cycle := CycleTests(run.Converged, n)
	total := 0
	for _, r := range cycle {
		total += len(r.Tests)
	}
	return run.LatencyRounds, float64(total) / float64(len(cycle)), nil
}

// Curves measures alg at every n of ns: the mean over samples random fault sets (each of a
// uniformly drawn size 0 … n/2, uniformly placed; seeded, so the same seed gives the same sets)
// and the worst fault set found.
func Curves(alg string, ns []int, samples int, seed uint64) ([]CurvePoint, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(len(alg))))
	var out []CurvePoint
	for _, n := range ns {
		mean := CurvePoint{Alg: alg, N: n, Family: "random"}
		worst := CurvePoint{Alg: alg, N: n, Family: "worst", LatencyRounds: -1, TestsPerRound: -1}
		consider := func(f []core.Rank) error {
			lat, tpr, err := measureSet(alg, n, f)
			if err != nil {
				return err
			}
			if float64(lat) > worst.LatencyRounds {
				worst.LatencyRounds, worst.WorstLatencySet = float64(lat), f
			}
			if tpr > worst.TestsPerRound {
				worst.TestsPerRound, worst.WorstTestsSet = tpr, f
			}
			return nil
		}
		for k := 0; k < samples; k++ {
			size := rng.IntN(n/2 + 1)
			perm := rng.Perm(n)[:size]
			f := make([]core.Rank, size)
			for j, r := range perm {
				f[j] = core.Rank(r)
			}
			lat, tpr, err := measureSet(alg, n, f)
			if err != nil {
				return nil, err
			}
			mean.LatencyRounds += float64(lat) / float64(samples)
			mean.TestsPerRound += tpr / float64(samples)
			if err := consider(f); err != nil {
				return nil, err
			}
		}
		if n <= 16 {
			for mask := uint64(0); mask < 1<<uint(n)-1; mask++ {
				f := make([]core.Rank, 0, bits.OnesCount64(mask))
				for r := 0; r < n; r++ {
					if mask>>uint(r)&1 == 1 {
						f = append(f, core.Rank(r))
					}
				}
				if err := consider(f); err != nil {
					return nil, err
				}
			}
		} else {
			for _, f := range WorstCandidates(n) {
				if err := consider(f); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, mean, worst)
	}
	return out, nil
}

// Bound returns the thesis's bound at n for "latency" (rounds) or "tests" (tests per round): n
// and n for Adaptive-DSD (§3.3); (log2 n)² and — for tests, none stated beyond "quadratic" — 0
// for Hi-ADSD; for VCube no latency bound and n·log2 n per log2 n rounds, i.e. n per round.
func Bound(alg, what string, n int) float64 {
	l := float64(LogN(n))
	switch {
	case alg == ADSD:
		return float64(n)
	case what == "latency" && alg == HiADSD:
		return l * l
	case what == "tests" && alg == VCube:
		return float64(n)
	}
	return 0
}

// WriteCurves draws one panel as SVG: what ("latency" or "tests") against n for the points of
// every algorithm, with the bounds of §3.3–3.4 dashed.
func WriteCurves(w io.Writer, pts []CurvePoint, what string) error {
	p := plot.New()
	p.X.Label.Text = "n (nodes)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	if what == "latency" {
		p.Title.Text = "diagnosis latency from the start (test rounds)"
		p.Y.Label.Text = "test rounds"
	} else {
		p.Title.Text = "tests per round once converged (mean over a cycle)"
		p.Y.Label.Text = "tests per round"
	}
	p.Add(plotter.NewGrid())
	style := 0
	for _, alg := range []string{ADSD, HiADSD, VCube} {
		for _, fam := range []string{"random", "worst"} {
			var xy plotter.XYs
			for _, q := range pts {
				if q.Alg != alg || q.Family != fam {
					continue
				}
				y := q.LatencyRounds
				if what == "tests" {
					y = q.TestsPerRound
				}
				xy = append(xy, plotter.XY{X: float64(q.N), Y: max(y, 0.5)})
			}
			if len(xy) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(xy)
			if err != nil {
				return err
			}
			line.Color = plotutil.Color(style)
			points.Color = plotutil.Color(style)
			points.Shape = plotutil.Shape(style)
			style++
			p.Add(line, points)
			p.Legend.Add(fmt.Sprintf("%s, %s fault set", alg, fam), line, points)
		}
		var bxy plotter.XYs
		for _, q := range pts {
			if q.Alg == alg && q.Family == "worst" && Bound(alg, what, q.N) > 0 {
				bxy = append(bxy, plotter.XY{X: float64(q.N), Y: Bound(alg, what, q.N)})
			}
		}
		if len(bxy) > 0 {
			bl, err := plotter.NewLine(bxy)
			if err != nil {
				return err
			}
			bl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			bl.Color = plotutil.Color(style - 1)
			p.Add(bl)
			p.Legend.Add(alg+" bound (thesis)", bl)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	wt, err := p.WriterTo(7*vg.Inch, 5*vg.Inch, "svg")
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}
