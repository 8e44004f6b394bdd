package msglog

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	elmodel "github.com/ftkernel/ftkernel/models/eventlogger"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// The cost of pessimistic logging (§5.3.2–5.3.3, Table 5.3, Table 5.4,
// Fig. 5.5), by simulation. Cost model:
//
//   - an application process spends App µs per receive event (its
//     computation and communication between two receives); a fraction
//     NonDet of its receive events are non-deterministic (ANY_SOURCE
//     receives, successful ANY_SOURCE probes), spread evenly, so it
//     generates a determinant every Think = App/NonDet µs of its own time;
//   - in synchronous mode (§5.2, the thesis's measurements) the process
//     waits for each determinant's acknowledgement: its run is longer by
//     the save latency R per determinant, an overhead of R/Think;
//   - R is measured by models/eventlogger's discrete-event simulation of
//     the logger's own machines (elmodel.Throughput) with every process
//     saving Think µs after its previous acknowledgement, under that
//     package's cost model (CPU per message and per consensus fitted to
//     Fig. 5.4's two saturation throughputs, 100 µs latency, 8 cores per
//     logger node) and Fig. 5.4's deployment (f = 1, every acceptor
//     taking part).
//
// Two regimes follow. Below the logger's capacity X (det/ms),
// R is the unloaded latency L0 and the overhead is NonDet·L0/App,
// proportional to the rate of determinants. Once Procs/Think exceeds X
// the logger saturates, each process gets X/Procs determinants per unit
// time and the overhead is Procs·NonDet/(X·App) − 1: it grows with the
// number of processes and is set by the logger's capacity, Classic Paxos's
// being the lowest.

// CostPoint is one simulated run.
type CostPoint struct {
	Logger el.Kind `json:"-"`
	Kind   string  `json:"logger"`
	Procs  int     `json:"procs"`
	NonDet float64 `json:"non_deterministic_fraction"`
	App    float64 `json:"app_us_per_receive"`
	Think  float64 `json:"us_between_determinants"`
	// Latency is the mean save latency R (µs), Throughput the logger's
	// determinants per ms.
	Latency    float64 `json:"save_latency_us"`
	Throughput float64 `json:"throughput_det_per_ms"`
	// Overhead is R/Think: the fraction by which the run is longer.
	Overhead float64 `json:"overhead"`
}

// CostLoggers are the three loggers in the order of the docs' tables.
var CostLoggers = []el.Kind{el.Centralized, el.Classic, el.Parallel}

// CostFractions are the non-deterministic fractions of the sweep, from
// AMG's 0.04 % (Table 5.3) to MG's 99.8 % and 100 %.
var CostFractions = []float64{0.0001, 0.0004, 0.001, 0.0025, 0.0063, 0.01, 0.03, 0.1, 0.3, 0.5, 0.998, 1}

// CostProcs are the numbers of processes of Tables 5.3 and 5.4.
var CostProcs = []int{16, 32, 64, 128}

// DefaultApp is the application time per receive event of the default
// cost model (µs): a communication-bound process whose every receive
// waits one network latency and the CPU of a send and a receive (the
// event logger's cost model: 100 + 2 × 4.46 µs).
func DefaultApp(c elmodel.CostModel) float64 { return c.Latency + 2*c.Msg }

// Cost simulates one point: procs processes of logger k, a fraction
// nonDet (0 < nonDet ≤ 1) of non-deterministic receive events, app µs
// (> 0) per receive event. The simulated time covers 40 determinant
// intervals per process (at least 20 ms), after a tenth more of warm-up.
func Cost(k el.Kind, procs int, nonDet, app float64, cost elmodel.CostModel) (CostPoint, error) {
	if !(nonDet > 0 && nonDet <= 1) || !(app > 0) {
		return CostPoint{}, fmt.Errorf("msglog cost: non-deterministic fraction %g (want (0, 1]), app %g µs (want > 0)", nonDet, app)
	}
	think := app / nonDet
	dur := max(20000, 40*think)
	cp := elmodel.CountParams{Kind: k, F: 1, Procs: procs, AllAcceptors: true, Experimental: k != el.Centralized}
	r, err := elmodel.Throughput(elmodel.DESParams{Count: cp, Cost: cost, Duration: dur, Warmup: dur / 10, Think: think})
	if err != nil {
		return CostPoint{}, err
	}
	lat := r.Latency * 1000
	return CostPoint{Logger: k, Kind: k.String(), Procs: procs, NonDet: nonDet, App: app, Think: think,
		Latency: lat, Throughput: r.Throughput, Overhead: lat / think}, nil
}

// CostCurve runs Cost for every logger, number of processes and fraction.
func CostCurve(procs []int, fractions []float64, app float64, cost elmodel.CostModel) ([]CostPoint, error) {
	var out []CostPoint
	for _, k := range CostLoggers {
		for _, n := range procs {
			for _, f := range fractions {
				pt, err := Cost(k, n, f, app, cost)
				if err != nil {
					return nil, err
				}
				out = append(out, pt)
			}
		}
	}
	return out, nil
}

// NonDeterminism counts the receive events of p's failure-free run
// (deliveries and successful probes, of every process) and those that are
// non-deterministic (an ANY_SOURCE receive or probe: a determinant each),
// Table 5.3's measure.
func NonDeterminism(p Params) (events, nonDet int, err error) {
	p.CheckpointEvery = 0
	r, err := Simulate(p, Crash{}, 0)
	if err != nil {
		return 0, 0, err
	}
	prog := p.program()
	for q := range core.Rank(p.Procs) {
		for _, rec := range r.Final.History(q) {
			e, ok := rec.Value.(ml.Event)
			if !ok || (e.Kind != ml.EvRecv && e.Kind != ml.EvProbe) {
				continue
			}
			events++
			if prog.Procs[q][rec.Instance].Peer == ml.AnySource {
				nonDet++
			}
		}
	}
	return events, nonDet, nil
}

// Table53 is the thesis's Table 5.3 at 128 processes: the fraction of
// non-deterministic events of each benchmark.
var Table53 = []struct {
	Name   string
	NonDet float64
}{
	{"AMG", 0.0004}, {"LU class D", 0.0025}, {"LU class C", 0.0063}, {"MG class C", 0.998}, {"MG class D", 0.9993},
}
