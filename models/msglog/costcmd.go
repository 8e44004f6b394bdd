package msglog

import (
	"flag"
	"fmt"
	"strings"
	"time"

	elmodel "github.com/ftkernel/ftkernel/models/eventlogger"
	"github.com/ftkernel/ftkernel/registry"
)

// measureFlags are simulate's --measure and its options: the cost of
// logging (cost.go), of recovery (recoverycost.go) and the domino effect
// without logging (domino.go), instead of the one scenario.
type measureFlags struct {
	name      *string
	appUS     *float64
	intervals *string
}

// Measures are --measure's values.
var Measures = []string{"cost", "recovery", "domino"}

func defineMeasure(fs *flag.FlagSet) measureFlags {
	return measureFlags{
		name:      fs.String("measure", "", "instead of one scenario: cost (logging overhead against the fraction of non-deterministic events, per logger), recovery (every crash point of every rank, per checkpoint interval) or domino (recovery lines without logging)"),
		appUS:     fs.Float64("app-us", 0, "--measure cost: application µs per receive event (0: one network latency and two messages' CPU of the event logger's cost model)"),
		intervals: fs.String("intervals", "1,2,4,0", "--measure recovery: checkpoint intervals in deliveries (0: the program's own checkpoints only)"),
	}
}

// run runs the measure named by --measure over p.
func (m measureFlags) run(p Params) (*registry.SimReport, error) {
	start := time.Now()
	rep := &registry.SimReport{Model: "msglog", Mode: *m.name, Violations: []registry.ViolationRef{}, Figures: map[string]any{}}
	var err error
	switch *m.name {
	case "cost":
		err = m.cost(p, rep)
	case "recovery":
		err = m.recovery(p, rep)
	case "domino":
		err = dominoReport(p, rep)
	default:
		return nil, fmt.Errorf("--measure %q: want one of %s", *m.name, strings.Join(Measures, ", "))
	}
	if err != nil {
		return nil, err
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

func (m measureFlags) cost(p Params, rep *registry.SimReport) error {
	if !(*m.appUS >= 0 && *m.appUS <= 1e7) {
		return fmt.Errorf("--app-us %g: want 0 … 1e7", *m.appUS)
	}
	cost, _, _, err := elmodel.Calibrate(1)
	if err != nil {
		return err
	}
	app := *m.appUS
	if app == 0 {
		app = DefaultApp(cost)
	}
	events, nonDet, err := NonDeterminism(p)
	if err != nil {
		return err
	}
	type column struct {
		name string
		f    float64
	}
	var cols []column
	for _, b := range Table53 {
		cols = append(cols, column{b.Name, b.NonDet})
	}
	if nonDet > 0 {
		cols = append(cols, column{p.Program, float64(nonDet) / float64(events)})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "msglog cost of logging: program %s, %d processes: %d of %d receive events non-deterministic (%.2f%%)\n",
		p.Program, p.Procs, nonDet, events, 100*float64(nonDet)/float64(max(events, 1)))
	fmt.Fprintf(&b, "cost model: %.2f µs of application per receive event; logger msg %.2f µs, consensus %.2f µs, latency %g µs, %d cores (models/eventlogger, fitted to Fig. 5.4)\n",
		app, cost.Msg, cost.Consensus, cost.Latency, cost.Cores)
	b.WriteString("overhead of synchronous logging (save latency µs):\n| procs | logger |")
	for _, c := range cols {
		fmt.Fprintf(&b, " %s %.2f%% |", c.name, 100*c.f)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(cols)) + "\n")
	var pts []CostPoint
	for _, n := range CostProcs {
		for _, k := range CostLoggers {
			fmt.Fprintf(&b, "| %d | %v |", n, k)
			for _, c := range cols {
				pt, err := Cost(k, n, c.f, app, cost)
				if err != nil {
					return err
				}
				pts = append(pts, pt)
				fmt.Fprintf(&b, " %s (%.0f) |", percent(pt.Overhead), pt.Latency)
			}
			b.WriteString("\n")
		}
	}
	rep.Figures["program"], rep.Figures["procs"] = p.Program, p.Procs
	rep.Figures["receive_events"], rep.Figures["non_deterministic_events"] = events, nonDet
	rep.Figures["app_us"], rep.Figures["cost_model"], rep.Figures["cost"] = app, cost, pts
	rep.Text = b.String()
	return nil
}

// percent formats a fraction as a percentage with 3 significant digits.
func percent(x float64) string {
	switch {
	case x >= 10:
		return fmt.Sprintf("%.0f%%", 100*x)
	case x >= 0.1:
		return fmt.Sprintf("%.1f%%", 100*x)
	case x >= 0.001:
		return fmt.Sprintf("%.2f%%", 100*x)
	}
	return fmt.Sprintf("%.3f%%", 100*x)
}

func (m measureFlags) recovery(p Params, rep *registry.SimReport) error {
	var intervals []int
	for _, s := range strings.Split(*m.intervals, ",") {
		var k int
		if _, err := fmt.Sscan(strings.TrimSpace(s), &k); err != nil || k < 0 || k > 64 {
			return fmt.Errorf("--intervals %q: want a comma-separated list of 0 … 64", *m.intervals)
		}
		intervals = append(intervals, k)
	}
	rows, err := RecoverySweep(p, intervals)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "msglog recovery cost: program %s, %d processes, logger %v; one crash after each delivery of each rank, default schedule; means per crash\n",
		p.Program, p.Procs, p.Logger)
	b.WriteString("| crashed | checkpoint every | runs | operations re-executed (max) | determinants replayed | messages re-sent | sends suppressed | extra steps |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		ck := fmt.Sprint(r.CheckpointEvery)
		if r.CheckpointEvery == 0 {
			ck = "program's own"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %.2f (%d) | %.2f | %.2f | %.2f | %.1f |\n",
			r.Role, ck, r.Runs, r.Reexecuted, r.MaxReexecuted, r.Determinants, r.Resent, r.Suppressed, r.ExtraSteps)
	}
	rep.Figures["program"], rep.Figures["procs"], rep.Figures["logger"] = p.Program, p.Procs, p.Logger.String()
	rep.Figures["recovery"] = rows
	rep.Text = b.String()
	return nil
}
