package gossipfd

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// Fig12Row is one n of the Fig. 12 analogue for one variant: the exact
// values for n ≤ ExactUpTo, the Bonferroni bracket of reading A, and Monte
// Carlo estimates with 95 % intervals beyond.
type Fig12Row struct {
	N       int             `json:"n"`
	Variant string          `json:"variant"`
	Result  FDFailureResult `json:"result"`
}

// Fig12 computes the rows for BRR and DBRR: exact for n = 2…exactUpTo, and
// Monte Carlo (trials, seed + n) at each n of mcNs.
func Fig12(f float64, exactUpTo int, mcNs []int, trials int64, seed uint64) ([]Fig12Row, error) {
	var rows []Fig12Row
	for _, v := range []fd.Variant{fd.BRR, fd.DBRR} {
		for n := 2; n <= exactUpTo; n++ {
			r, err := FDFailureExact(v, n, f)
			if err != nil {
				return nil, err
			}
			rows = append(rows, Fig12Row{n, v.String(), r})
		}
		for _, n := range mcNs {
			r, err := FDFailureMonteCarlo(v, n, f, trials, seed+uint64(n))
			if err != nil {
				return nil, err
			}
			rows = append(rows, Fig12Row{n, v.String(), r})
		}
	}
	return rows, nil
}

// Fig12SVG draws the rows: FD-failure probability against n on a log
// scale, both variants, both readings. Exact values are solid lines (A) and
// dashed lines (B); beyond the exact range, reading A's Bonferroni upper
// bound S1 (tight: S1 − S2 differs in the fourth digit) is a dotted line, and
// Monte Carlo estimates of reading B are points with their 95 % intervals.
// Zero estimates cannot be drawn on a log scale and are left out (their
// intervals' upper bounds are in the JSON). The failure probability of an
// unreplicated application on n hosts, P_app(n) = 1 − (1−f)^n, is drawn in
// grey for requirement d) of §5.2.
func Fig12SVG(rows []Fig12Row, f float64) ([]byte, error) {
	return Fig12Image(rows, f, "svg")
}

// Fig12Image is Fig12SVG in another gonum/plot format ("svg", "png", "pdf").
func Fig12Image(rows []Fig12Row, f float64, format string) ([]byte, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("FD failure probability, BRR and DBRR (f = %.4f: δ = 1, λt = 0.1)", f)
	p.X.Label.Text = "number of nodes n"
	p.Y.Label.Text = "probability"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = powersOfTwo{}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = decades{}
	p.Legend.Top = false
	p.Legend.Left = true
	colors := map[string]color.Color{"brr": color.RGBA{R: 200, G: 40, B: 40, A: 255}, "dbrr": color.RGBA{R: 30, G: 80, B: 200, A: 255}}
	type key struct{ v, what string }
	series := map[key]plotter.XYs{}
	var errs []struct {
		v        string
		x, y, lo float64
		hi       float64
	}
	app := plotter.XYs{}
	seenApp := map[int]bool{}
	for _, r := range rows {
		res := r.Result
		x := float64(r.N)
		if !seenApp[r.N] {
			seenApp[r.N] = true
			app = append(app, plotter.XY{X: x, Y: res.PApp})
		}
		if res.Method == "exact" {
			if res.PCut > 0 {
				series[key{r.Variant, "A exact"}] = append(series[key{r.Variant, "A exact"}], plotter.XY{X: x, Y: res.PCut})
			}
			if res.PDisconnected > 0 {
				series[key{r.Variant, "B exact"}] = append(series[key{r.Variant, "B exact"}], plotter.XY{X: x, Y: res.PDisconnected})
			}
			continue
		}
		if res.PCutBounds[1] > 0 {
			series[key{r.Variant, "A bound"}] = append(series[key{r.Variant, "A bound"}], plotter.XY{X: x, Y: res.PCutBounds[1]})
		}
		if res.PDisconnected > 0 {
			errs = append(errs, struct {
				v        string
				x, y, lo float64
				hi       float64
			}{r.Variant, x, res.PDisconnected, res.PDisconnectedCI95[0], res.PDisconnectedCI95[1]})
		}
	}
	sortXY := func(xy plotter.XYs) plotter.XYs {
		for i := 1; i < len(xy); i++ {
			for j := i; j > 0 && xy[j].X < xy[j-1].X; j-- {
				xy[j], xy[j-1] = xy[j-1], xy[j]
			}
		}
		return xy
	}
	for _, v := range []string{"brr", "dbrr"} {
		for _, what := range []string{"A exact", "B exact", "A bound"} {
			xy := series[key{v, what}]
			if len(xy) == 0 {
				continue
			}
			l, err := plotter.NewLine(sortXY(xy))
			if err != nil {
				return nil, err
			}
			l.Color = colors[v]
			l.Width = vg.Points(1.5)
			switch what {
			case "B exact":
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			case "A bound":
				l.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
			}
			p.Add(l)
			label := map[string]string{"A exact": "A (cut), exact", "B exact": "B (not strongly connected), exact", "A bound": "A, Bonferroni S1"}[what]
			p.Legend.Add(fmt.Sprintf("%s %s", v, label), l)
		}
		var pts plotter.XYs
		var yerr plotter.YErrors
		for _, e := range errs {
			if e.v == v {
				pts = append(pts, plotter.XY{X: e.x, Y: e.y})
				yerr = append(yerr, struct{ Low, High float64 }{e.y - e.lo, e.hi - e.y})
			}
		}
		if len(pts) > 0 {
			s, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, err
			}
			s.Color = colors[v]
			s.Shape = draw.CircleGlyph{}
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{pts, yerr})
			if err != nil {
				return nil, err
			}
			eb.Color = colors[v]
			p.Add(s, eb)
			p.Legend.Add(v+" B, Monte Carlo (95 %)", s)
		}
	}
	l, err := plotter.NewLine(sortXY(app))
	if err != nil {
		return nil, err
	}
	l.Color = color.Gray{Y: 140}
	p.Add(l)
	p.Legend.Add("P_app(n) = 1 − (1−f)^n", l)
	w, err := p.WriterTo(8*vg.Inch, 5.5*vg.Inch, format)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// powersOfTwo marks n = 2, 4, 8, … on a logarithmic x axis.
type powersOfTwo struct{}

func (powersOfTwo) Ticks(lo, hi float64) []plot.Tick {
	var t []plot.Tick
	for x := 2.0; x <= hi*1.0001; x *= 2 {
		if x >= lo*0.9999 {
			t = append(t, plot.Tick{Value: x, Label: fmt.Sprint(x)})
		}
	}
	return t
}

// decades marks every power of ten on a logarithmic y axis, labelled 1e-k.
type decades struct{}

func (decades) Ticks(lo, hi float64) []plot.Tick {
	var t []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		if x := math.Pow(10, e); x >= lo*0.9999 && x <= hi*1.0001 {
			t = append(t, plot.Tick{Value: x, Label: fmt.Sprintf("1e%+03.0f", e)})
		}
	}
	return t
}
