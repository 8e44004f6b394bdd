package dgrp

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// WriteGroupSize draws the group's size per test round as SVG, as Fig.
// 4.13 draws the DGRP's composition over the run.
func WriteGroupSize(w io.Writer, sizes []int, c CampaignParams) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("DGRP size per test round: n=%d, ζ=%d, F=%g, seed %d (synthetic response times)", c.N, c.Zeta, c.F, c.Seed)
	p.X.Label.Text = "test round"
	p.Y.Label.Text = "processes in the DGRP"
	p.Y.Min, p.Y.Max = 0, float64(c.N)+0.5
	xy := make(plotter.XYs, len(sizes))
	for i, s := range sizes {
		xy[i] = plotter.XY{X: float64(i + 1), Y: float64(s)}
	}
	line, err := plotter.NewLine(xy)
	if err != nil {
		return err
	}
	p.Add(plotter.NewGrid(), line)
	wt, err := p.WriterTo(9*vg.Inch, 3.5*vg.Inch, "svg")
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}
