package eventlogger

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// Fig54Procs are the numbers of application processes of the sweep.
var Fig54Procs = []int{1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128}

// Fig54Point is one run of the sweep.
type Fig54Point struct {
	Kind  el.Kind
	Procs int
	DESResult
}

// Fig54 runs the throughput simulation of the three loggers in the
// §5.3.1 deployment (Classic: a dedicated coordinator, 2f+1 acceptor and
// learner nodes; Parallel: the proposer-learner with its process, the
// acceptors on 2f+1 dedicated nodes; every acceptor taking part, as the
// libpaxos deployment sends to all) for each of procs, f = 1, under cost.
func Fig54(cost CostModel, procs []int, duration float64) ([]Fig54Point, error) {
	var out []Fig54Point
	for _, k := range []el.Kind{el.Centralized, el.Classic, el.Parallel} {
		for _, n := range procs {
			cp := CountParams{Kind: k, F: 1, Procs: n, AllAcceptors: true, Experimental: k != el.Centralized}
			r, err := Throughput(DESParams{Count: cp, Cost: cost, Duration: duration, Warmup: duration / 10})
			if err != nil {
				return nil, err
			}
			out = append(out, Fig54Point{Kind: k, Procs: n, DESResult: r})
		}
	}
	return out, nil
}

// WriteFig54 draws the sweep as SVG: throughput (det/ms) against the
// number of application processes.
func WriteFig54(w io.Writer, pts []Fig54Point, cost CostModel) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Fig. 5.4 by simulation: msg %.2f µs, consensus %.2f µs, latency %g µs, %d cores/logger node", cost.Msg, cost.Consensus, cost.Latency, cost.Cores)
	p.X.Label.Text = "application processes"
	p.Y.Label.Text = "throughput (determinants/ms)"
	p.Add(plotter.NewGrid())
	for i, k := range []el.Kind{el.Centralized, el.Classic, el.Parallel} {
		var xy plotter.XYs
		for _, q := range pts {
			if q.Kind == k {
				xy = append(xy, plotter.XY{X: float64(q.Procs), Y: q.Throughput})
			}
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		line.Color, points.Color, points.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(k.String(), line, points)
	}
	p.Legend.Top, p.Legend.Left = true, true
	wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, "svg")
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}
