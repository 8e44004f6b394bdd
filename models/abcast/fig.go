package abcast

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// FigA4Nodes are the appendix's node counts.
var FigA4Nodes = []int{32, 64, 128}

// FigA4 runs the appendix's round for each variant and node count (2
// unstable nodes, k = s), under the default delay model.
func FigA4(seed uint64) (map[ab.Variant][]RoundResult, error) {
	out := map[ab.Variant][]RoundResult{}
	for _, v := range ab.Variants {
		for _, n := range FigA4Nodes {
			r, err := Round{Variant: v, N: n, Unstable: 2, Seed: seed, Tx: 1, Handle: 0.1}.Simulate()
			if err != nil {
				return nil, err
			}
			out[v] = append(out[v], r)
		}
	}
	return out, nil
}

// WriteFigA4 draws Fig. A.4's two panels as SVG: latency (time units) and
// messages against total nodes, one line per variant.
func WriteFigA4(w io.Writer, res map[ab.Variant][]RoundResult) error {
	panel := func(title, y string, val func(RoundResult) float64) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text = title
		p.X.Label.Text = "total nodes (2 unstable)"
		p.Y.Label.Text = y
		p.Add(plotter.NewGrid())
		for i, v := range ab.Variants {
			var xy plotter.XYs
			for j, r := range res[v] {
				xy = append(xy, plotter.XY{X: float64(FigA4Nodes[j]), Y: val(r)})
			}
			line, points, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, err
			}
			line.Color, points.Color, points.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
			p.Add(line, points)
			p.Legend.Add(v.String(), line, points)
		}
		p.Legend.Top, p.Legend.Left = true, true
		return p, nil
	}
	lat, err := panel("Fig. A.4(a) by simulation: latency", "time units from t=30 to the last delivery", func(r RoundResult) float64 { return r.Latency })
	if err != nil {
		return err
	}
	msgs, err := panel("Fig. A.4(b) by simulation: messages", "messages sent", func(r RoundResult) float64 { return float64(r.Total) })
	if err != nil {
		return err
	}
	const width, height = 10 * vg.Inch, 4 * vg.Inch
	svg := vgsvg.New(width, height)
	dc := draw.New(svg)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Millimeter * 4}
	for i, p := range []*plot.Plot{lat, msgs} {
		p.Draw(tiles.At(dc, i, 0))
	}
	if _, err := svg.WriteTo(w); err != nil {
		return fmt.Errorf("fig A.4: %w", err)
	}
	return nil
}
