package replica

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Fig10Alphas are the overhead slopes drawn by WriteFig10: α = 1 (the
// overhead factor is r, which puts the minimum at r = 7 as the paper's
// figure does) and three smaller slopes for comparison.
var Fig10Alphas = []float64{1, 0.9, 0.8, 0.5}

// WriteFig10 draws Fig. 10 of §4.5 as SVG: P_appr(10, r) for r = 1 … rmax
// with δ = 1, λ = 0.1 s⁻¹ and a sequential time of 10 s, under the
// duration model of Duration for each α of Fig10Alphas.
func WriteFig10(w io.Writer, rmax int) error {
	p := plot.New()
	p.Title.Text = "P_appr(10, r), δ = 1, λ = 0.1/s, T_seq = 10 s, t(r) = (T_seq/p)(1 + α(r−1))"
	p.X.Label.Text = "replication degree r"
	p.Y.Label.Text = "application failure probability"
	p.Add(plotter.NewGrid())
	for i, alpha := range Fig10Alphas {
		curve, best := Fig10(10, rmax, 0.1, 1, 10, alpha)
		pts := make(plotter.XYs, len(curve))
		for i, v := range curve {
			pts[i].X, pts[i].Y = float64(i+1), v
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		points.Color = plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(fmt.Sprintf("α = %.1f (min at r = %d)", alpha, best), line, points)
	}
	p.Legend.Top = true
	wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, "svg")
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}
