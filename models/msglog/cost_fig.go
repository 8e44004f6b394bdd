package msglog

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	elmodel "github.com/ftkernel/ftkernel/models/eventlogger"
)

// WriteCostFig draws the cost curves in format ("svg" or "png"): the overhead (%) against
// the fraction of non-deterministic receive events (%), both on log
// scales, one line per logger and number of processes (solid: the largest
// number, dashed: the smallest), with Table 5.3's benchmarks marked on the
// x axis.
func WriteCostFig(w io.Writer, pts []CostPoint, cost elmodel.CostModel, format string) error {
	if len(pts) == 0 {
		return fmt.Errorf("msglog cost figure: no points")
	}
	lo, hi := pts[0].Procs, pts[0].Procs
	for _, q := range pts {
		lo, hi = min(lo, q.Procs), max(hi, q.Procs)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Cost of synchronous logging: %.1f µs of application per receive event, msg %.2f µs, consensus %.2f µs, latency %g µs",
		pts[0].App, cost.Msg, cost.Consensus, cost.Latency)
	p.X.Label.Text = "non-deterministic receive events (%)"
	p.Y.Label.Text = "overhead (%)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	ymin := pts[0].Overhead
	for _, q := range pts {
		ymin = min(ymin, q.Overhead)
	}
	ns := []int{hi}
	if lo != hi {
		ns = append(ns, lo)
	}
	for i, k := range CostLoggers {
		for _, n := range ns {
			var xy plotter.XYs
			for _, q := range pts {
				if q.Logger == k && q.Procs == n {
					xy = append(xy, plotter.XY{X: 100 * q.NonDet, Y: 100 * q.Overhead})
				}
			}
			if len(xy) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(xy)
			if err != nil {
				return err
			}
			line.Color, points.Color, points.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
			if n != hi {
				line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			p.Add(line, points)
			p.Legend.Add(fmt.Sprintf("%v, %d processes", k, n), line, points)
		}
	}
	var marks plotter.XYLabels
	for _, b := range Table53 {
		if b.Name == "MG class D" {
			continue // beside MG class C
		}
		marks.XYs = append(marks.XYs, plotter.XY{X: 100 * b.NonDet, Y: 100 * ymin})
		marks.Labels = append(marks.Labels, b.Name)
	}
	labels, err := plotter.NewLabels(marks)
	if err != nil {
		return err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Rotation = 1.5708
		labels.TextStyle[i].XAlign, labels.TextStyle[i].YAlign = draw.XCenter, draw.YBottom
	}
	p.Add(labels)
	p.Legend.Top, p.Legend.Left = true, true
	wt, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}
