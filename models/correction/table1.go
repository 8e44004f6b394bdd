package correction

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"

	"github.com/ftkernel/ftkernel/checker/logp"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
)

// Table1Paper is Table 1 of the paper: per fault rate (%), g_max and L_SCC
// at the 99th, 99.9th percentile and maximum, over all tree types.
var Table1Paper = map[float64][6]int{
	0.01: {1, 2, 3, 10, 12, 14},
	0.1:  {2, 3, 6, 12, 13, 16},
	1:    {5, 7, 19, 16, 19, 32},
	2:    {8, 11, 35, 19, 24, 56},
	4:    {13, 20, 55, 26, 34, 86},
}

// Table1Rates are Table 1's fault rates in percent.
var Table1Rates = []float64{0.01, 0.1, 1, 2, 4}

// Table1Trees are the trees of the paper's evaluation (Figure 6).
var Table1Trees = []corrsm.Tree{
	{Kind: corrsm.BinomialInterleaved},
	{Kind: corrsm.Lame, K: 2},
	{Kind: corrsm.KaryInterleaved, K: 4},
	{Kind: corrsm.Optimal},
}

// Table1Row is one fault rate of Table 1: ours beside the paper's.
type Table1Row struct {
	RatePct    float64 `json:"fault_rate_pct"`
	Runs       int     `json:"runs"`
	GMax       Dist    `json:"g_max"`
	LSCC       Dist    `json:"l_scc"`
	Paper      [6]int  `json:"paper_gmax_p99_p999_max_lscc_p99_p999_max"`
	Uncolored  int     `json:"runs_with_uncolored"`
	FaultFreeL int64   `json:"fault_free_l_scc"`
}

// Sec43Row counts uncolored processes under opportunistic correction.
type Sec43Row struct {
	RatePct          float64 `json:"fault_rate_pct"`
	Runs             int     `json:"runs"`
	RunsWithUncolor  int     `json:"runs_with_uncolored"`
	UncoloredTotal   int     `json:"uncolored_total"`
	MaxUncoloredOnce int     `json:"max_uncolored_in_a_run"`
}

// Fig1bRow compares the correction latency of the interleaved and in-order
// binomial trees.
type Fig1bRow struct {
	RatePct     float64 `json:"fault_rate_pct"`
	Faults      int     `json:"faults"`
	Runs        int     `json:"runs"`
	Interleaved Dist    `json:"interleaved_l_scc"`
	InOrder     Dist    `json:"inorder_l_scc"`
}

// errInterrupted stops a paper campaign whose context was canceled.
var errInterrupted = errors.New("interrupted")

func paperCampaign(ctx context.Context, base Params, L, o, g int64, overlap bool, prio logp.Prio, runs int, seed uint64,
	table1, sec43, fig1b bool, progress func(string)) (out *registry.SimReport, err error) {
	t0 := time.Now()
	rep := &registry.SimReport{Model: fmt.Sprintf("correction P=%d L=%d o=%d g=%d", base.P, L, o, g), Mode: "paper", Seed: seed,
		Violations: []registry.ViolationRef{}, Figures: map[string]any{}}
	var b strings.Builder
	defer func() {
		if errors.Is(err, errInterrupted) {
			fmt.Fprintf(&b, "interrupted: the rows above are complete\n")
			rep.Text, rep.Seconds, rep.Interrupted = b.String(), time.Since(t0).Seconds(), true
			out, err = rep, nil
		}
	}()
	camp := func(p Params, ratePct float64, label string) ([]RunFigures, *CorrSim, error) {
		cs, err := NewCorrSim(p, L, o, g, overlap, prio)
		if err != nil {
			return nil, nil, err
		}
		last := time.Now()
		figs, err := cs.Campaign(ctx, ratePct/100, runs, seed, func(done int) {
			if time.Since(last) > 5*time.Second {
				last = time.Now()
				progress(fmt.Sprintf("progress: %s %.2f%%: %d/%d runs, %.0fs", label, ratePct, done, runs, time.Since(t0).Seconds()))
			}
		})
		if err == nil && len(figs) < runs {
			err = errInterrupted
		}
		if err == nil {
			progress(fmt.Sprintf("progress: %s %.2f%% done (%d runs), %.0fs", label, ratePct, runs, time.Since(t0).Seconds()))
		}
		return figs, cs, err
	}
	if table1 {
		var rows []Table1Row
		fmt.Fprintf(&b, "Table 1 (checked synchronized correction, P=%d, trees binomial/lame(2)/kary(4)/optimal, %d runs per tree and rate)\n", base.P, runs)
		fmt.Fprintf(&b, "  %6s | %-22s | %-22s | %-22s | %-22s\n", "F(%)", "g_max p99/p99.9/max", "paper", "L_SCC p99/p99.9/max", "paper")
		var ff int64
		for _, rate := range Table1Rates {
			var gm, ls []float64
			unc := 0
			for _, tr := range Table1Trees {
				p := base
				p.Tree, p.Correction, p.Start = tr, corrsm.Checked, corrsm.Synchronized
				figs, cs, err := camp(p, rate, "table1 "+tr.String())
				if err != nil {
					return nil, err
				}
				if ff == 0 {
					sim, _ := cs.NewSim(false)
					r, _, err := cs.Run(sim, core.RankSet{})
					if err != nil {
						return nil, err
					}
					ff = r.CorrectionLatency
				}
				for _, x := range figs {
					gm = append(gm, float64(x.GMax))
					ls = append(ls, float64(x.CorrectionLatency))
					if x.Uncolored > 0 {
						unc++
					}
				}
				rep.Violations = append(rep.Violations, simViolations(figs, seed, &b)...)
			}
			row := Table1Row{RatePct: rate, Runs: len(gm), GMax: NewDist(gm), LSCC: NewDist(ls), Paper: Table1Paper[rate], Uncolored: unc, FaultFreeL: ff}
			rows = append(rows, row)
			pp := row.Paper
			fmt.Fprintf(&b, "  %6.2f | %6g %6g %6g     | %6d %6d %6d     | %6g %6g %6g     | %6d %6d %6d\n", rate,
				row.GMax.P99, row.GMax.P999, row.GMax.Max, pp[0], pp[1], pp[2], row.LSCC.P99, row.LSCC.P999, row.LSCC.Max, pp[3], pp[4], pp[5])
		}
		fmt.Fprintf(&b, "  fault-free L_SCC = %d (paper 8); runs with uncolored processes: %d\n", ff, func() int {
			n := 0
			for _, r := range rows {
				n += r.Uncolored
			}
			return n
		}())
		rep.Figures["table1"] = rows
	}
	if sec43 {
		var rows []Sec43Row
		fmt.Fprintf(&b, "§4.3 opportunistic (optimized overlapped opportunistic, d=%d, P=%d, trees binomial/lame(2)/kary(4)/optimal, %d runs per tree and rate)\n", base.Distance, base.P, runs)
		fmt.Fprintf(&b, "  %6s %8s %20s %16s %12s\n", "F(%)", "runs", "runs with uncolored", "uncolored total", "max in a run")
		for _, rate := range []float64{0.01, 0.1, 0.5, 1, 2, 4} {
			row := Sec43Row{RatePct: rate}
			for _, tr := range Table1Trees {
				p := base
				p.Tree, p.Correction, p.Start = tr, corrsm.OptimizedOpportunistic, corrsm.Overlapped
				figs, _, err := camp(p, rate, "section43 "+tr.String())
				if err != nil {
					return nil, err
				}
				for _, x := range figs {
					row.Runs++
					if x.Uncolored > 0 {
						row.RunsWithUncolor++
						row.UncoloredTotal += x.Uncolored
						row.MaxUncoloredOnce = max(row.MaxUncoloredOnce, x.Uncolored)
					}
				}
				rep.Violations = append(rep.Violations, simViolations(figs, seed, &b)...)
			}
			rows = append(rows, row)
			fmt.Fprintf(&b, "  %6.2f %8d %20d %16d %12d\n", rate, row.Runs, row.RunsWithUncolor, row.UncoloredTotal, row.MaxUncoloredOnce)
		}
		rep.Figures["section43"] = rows
	}
	if fig1b {
		var rows []Fig1bRow
		fmt.Fprintf(&b, "Figure 1b (checked synchronized correction latency L_SCC, binomial tree, P=%d, %d runs per rate)\n", base.P, runs)
		fmt.Fprintf(&b, "  %6s %7s | %-26s | %-26s\n", "F(%)", "faults", "interleaved mean/p99/max", "in-order mean/p99/max")
		for _, rate := range []float64{0.01, 0.1, 1, 2, 4} {
			row := Fig1bRow{RatePct: rate, Faults: int(math.Round(rate / 100 * float64(base.P))), Runs: runs}
			for _, kind := range []corrsm.TreeKind{corrsm.BinomialInterleaved, corrsm.BinomialInOrder} {
				p := base
				p.Tree, p.Correction, p.Start = corrsm.Tree{Kind: kind}, corrsm.Checked, corrsm.Synchronized
				figs, _, err := camp(p, rate, "fig1b "+kind.String())
				if err != nil {
					return nil, err
				}
				d := NewDist(column(figs, func(r RunFigures) float64 { return float64(r.CorrectionLatency) }))
				if kind == corrsm.BinomialInterleaved {
					row.Interleaved = d
				} else {
					row.InOrder = d
				}
				rep.Violations = append(rep.Violations, simViolations(figs, seed, &b)...)
			}
			rows = append(rows, row)
			fmt.Fprintf(&b, "  %6.2f %7d | %8.2f %8g %8g | %8.2f %8g %8g\n", rate, row.Faults,
				row.Interleaved.Mean, row.Interleaved.P99, row.Interleaved.Max, row.InOrder.Mean, row.InOrder.P99, row.InOrder.Max)
		}
		rep.Figures["fig1b"] = rows
	}
	rep.Text = b.String()
	rep.Seconds = time.Since(t0).Seconds()
	return rep, nil
}
