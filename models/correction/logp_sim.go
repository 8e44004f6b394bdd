package correction

import (
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ftkernel/ftkernel/checker/logp"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// CorrSim is one LogP setting of a Corrected Tree broadcast: the tree, the
// correction, the LogP parameters and, for synchronized start, the start
// time (the fault-free dissemination's quiescence, as in §4.2). With gossip
// dissemination the start is the gossip time T (§3.3: "a pre-specified
// moment in time"), and run i gossips over GossipPartners(…, seed, i).
type CorrSim struct {
	Params  Params
	L, O, G int64
	Overlap bool
	Prio    logp.Prio
	cfg     *corrsm.Config
	syncAt  int64
}

// NewCorrSim tabulates the tree and finds the synchronized start.
func NewCorrSim(p Params, L, o, g int64, overlap bool, prio logp.Prio) (*CorrSim, error) {
	if p.Tree.Kind == corrsm.Optimal {
		p.Tree.L, p.Tree.O = int(L), int(o)
	}
	if p.Gossip != nil {
		gp := *p.Gossip
		if gp.Time == 0 {
			gp.Time = DefaultGossipTime(p.P)
		}
		if gp.Rounds == 0 {
			gp.Rounds = int((gp.Time + o - 1) / o) // sends start at t < T, one every o
		}
		p.Gossip = &gp
	}
	cfg, err := p.Config()
	if err != nil {
		return nil, err
	}
	s := &CorrSim{Params: p, L: L, O: o, G: g, Overlap: overlap, Prio: prio, cfg: cfg}
	if p.Gossip != nil {
		s.syncAt = p.Gossip.Time
	} else if p.Start == corrsm.Synchronized && p.Correction != corrsm.NoCorrection {
		d := *s
		dc := *cfg
		dc.Correction = corrsm.NoCorrection
		d.cfg = &dc
		sim, err := logp.New(d.options(false))
		if err != nil {
			return nil, err
		}
		res, _, err := d.Run(sim, core.RankSet{})
		if err != nil {
			return nil, err
		}
		s.syncAt = res.QuiescenceLatency
	}
	return s, nil
}

// SyncAt is the synchronized start of correction.
func (s *CorrSim) SyncAt() int64 { return s.syncAt }

func (s *CorrSim) options(log bool) logp.Options {
	opt := logp.Options{L: s.L, O: s.O, G: s.G, Prio: s.Prio,
		SendSlotTimer:      corrsm.TimerSendSlot,
		Calls:              []logp.Call{{At: 0, Proc: 0, Input: corrsm.Broadcast{Value: BcastValue}}},
		CorrectionKinds:    []string{corrsm.KindCorrection},
		DisseminationKinds: []string{corrsm.KindTree},
		Log:                log,
	}
	if !s.Overlap {
		opt.Overlap = logp.Off
	}
	switch {
	case s.cfg.Gossip != nil:
		// The end of the gossip phase: before anything else of instant T,
		// so gossip sends start at t < T (gossip.go, rule G4).
		opt.Wakeups = []logp.Wakeup{{At: s.syncAt, Timer: corrsm.TimerStart, First: true}}
	case s.cfg.Start == corrsm.Synchronized && s.cfg.Correction != corrsm.NoCorrection:
		opt.Wakeups = []logp.Wakeup{{At: s.syncAt, Timer: corrsm.TimerStart}}
	}
	return opt
}

// NewSim returns a simulator for s (one per goroutine).
func (s *CorrSim) NewSim(log bool) (*logp.Sim, error) { return logp.New(s.options(log)) }

// Run simulates one broadcast (run 0) with faults failed from the start.
func (s *CorrSim) Run(sim *logp.Sim, faults core.RankSet) (*logp.Result, []core.Machine, error) {
	return s.RunNumber(sim, faults, 0)
}

// RunNumber simulates run number run: for gossip dissemination its partner
// sequences are GossipPartners(P, rounds, seed, run); trees do not depend
// on it.
func (s *CorrSim) RunNumber(sim *logp.Sim, faults core.RankSet, run uint64) (*logp.Result, []core.Machine, error) {
	cfg := s.cfg
	if g := s.Params.Gossip; g != nil && run != 0 {
		plan, err := GossipPartners(s.Params.P, g.Rounds, g.Seed, run)
		if err != nil {
			return nil, nil, err
		}
		c := *cfg
		c.Gossip = plan
		cfg = &c
	}
	nodes, err := corrsm.Nodes(cfg)
	if err != nil {
		return nil, nil, err
	}
	res, err := sim.Run(nodes, faults)
	return res, nodes, err
}

// RunFigures are the figures of one simulated broadcast (JSON keys).
type RunFigures struct {
	Coloring           int64 `json:"coloring"`
	Quiescence         int64 `json:"quiescence"`
	CorrectionLatency  int64 `json:"correction_latency"`
	Messages           int64 `json:"messages"`
	CorrectionMessages int64 `json:"correction_messages"`
	Uncolored          int   `json:"uncolored"`
	GMax               int   `json:"g_max"`
	Duplicates         int   `json:"duplicates"`
}

func figuresOf(r *logp.Result) RunFigures {
	return RunFigures{Coloring: r.ColoringLatency, Quiescence: r.QuiescenceLatency, CorrectionLatency: r.CorrectionLatency,
		Messages: r.Messages, CorrectionMessages: r.CorrectionMessages, Uncolored: r.Uncolored, GMax: r.GapMax, Duplicates: r.Duplicates}
}

// Campaign runs `runs` broadcasts of s with RandomFaults(P, rate, seed, i)
// for run i (and, for gossip, run i's partner sequences), on all CPUs; the
// result is indexed by run and does not depend on the number of workers.
func (s *CorrSim) Campaign(rate float64, runs int, seed uint64, progress func(done int)) ([]RunFigures, error) {
	out := make([]RunFigures, runs)
	workers := min(runtime.GOMAXPROCS(0), runs)
	var mu sync.Mutex
	next, done := 0, 0
	var firstErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sim, err := s.NewSim(false)
			for {
				mu.Lock()
				i := next
				next++
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if i >= runs || firstErr != nil {
					mu.Unlock()
					return
				}
				mu.Unlock()
				res, _, rerr := s.RunNumber(sim, logp.RandomFaults(s.Params.P, rate, seed, uint64(i)), uint64(i))
				mu.Lock()
				if rerr != nil {
					err = rerr
				} else {
					out[i] = figuresOf(res)
				}
				done++
				if progress != nil {
					progress(done)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out, firstErr
}

func column(fs []RunFigures, f func(RunFigures) float64) []float64 {
	out := make([]float64, len(fs))
	for i, x := range fs {
		out[i] = f(x)
	}
	return out
}

func distributions(fs []RunFigures) map[string]Dist {
	return map[string]Dist{
		"coloring":            NewDist(column(fs, func(r RunFigures) float64 { return float64(r.Coloring) })),
		"quiescence":          NewDist(column(fs, func(r RunFigures) float64 { return float64(r.Quiescence) })),
		"correction_latency":  NewDist(column(fs, func(r RunFigures) float64 { return float64(r.CorrectionLatency) })),
		"messages":            NewDist(column(fs, func(r RunFigures) float64 { return float64(r.Messages) })),
		"correction_messages": NewDist(column(fs, func(r RunFigures) float64 { return float64(r.CorrectionMessages) })),
		"uncolored":           NewDist(column(fs, func(r RunFigures) float64 { return float64(r.Uncolored) })),
		"g_max":               NewDist(column(fs, func(r RunFigures) float64 { return float64(r.GMax) })),
	}
}

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

func simulateCorrection(fs *flag.FlagSet) registry.SimBuilder {
	f := bindCorrection(fs, 65536)
	g := fs.Int("g", 1, "LogP gap g (≤ o; never delays anything)")
	overlap := fs.Bool("overlap", true, "a send overhead may overlap a receive overhead on one process")
	prio := fs.String("prio", "recv", "tie between a completing receive and a free send port: recv|send")
	faults := fs.String("faults", "", "ranks failed from the start, e.g. 1,5,9 or 16-31 (never 0)")
	rate := fs.Float64("fault-rate", 0, "Monte Carlo: fraction of non-root processes failed per run (e.g. 0.01)")
	runs := fs.Int("runs", 1, "Monte Carlo: number of runs (fault sets, and gossip partners, drawn from --seed and the run index); > 1 without --fault-rate: fault-free runs")
	seed := fs.Uint64("seed", 1, "seed of the fault sets and of the gossip partner sequences; the same seed and flags give the same output")
	svg := fs.String("svg", "", "write a timeline picture of the (single) run to this SVG file")
	table1 := fs.Bool("table1", false, "reproduce Table 1: checked synchronized correction on binomial, Lamé k=2, 4-ary and optimal trees at 0.01%…4% failed, --runs per tree and rate")
	sec43 := fs.Bool("section43", false, "reproduce §4.3 (opportunistic): optimized overlapped opportunistic correction (--d) at 0.01%…4% failed, --runs per tree and rate; count uncolored processes")
	fig1b := fs.Bool("fig1b", false, "reproduce Figure 1b: checked synchronized correction latency, interleaved vs in-order binomial tree, --runs per rate")
	return func(progress func(string)) (*registry.SimReport, error) {
		p, err := f.params()
		if err != nil {
			return nil, err
		}
		var pr logp.Prio
		switch *prio {
		case "recv":
		case "send":
			pr = logp.PrioSend
		default:
			return nil, fmt.Errorf("--prio %q: want recv or send", *prio)
		}
		if *runs < 1 {
			return nil, fmt.Errorf("--runs %d: need at least one", *runs)
		}
		L, o := int64(f.L), int64(f.o)
		switch {
		case (*table1 || *sec43 || *fig1b) && p.Gossip != nil:
			return nil, fmt.Errorf("--table1, --section43 and --fig1b choose their own trees: not with --tree gossip")
		case *table1, *sec43, *fig1b:
			return paperCampaign(p, L, o, int64(*g), *overlap, pr, *runs, *seed, *table1, *sec43, *fig1b, progress)
		}
		if p.Gossip != nil {
			p.Gossip.Seed = *seed
		}
		cs, err := NewCorrSim(p, L, o, int64(*g), *overlap, pr)
		if err != nil {
			return nil, err
		}
		p = cs.Params
		t0 := time.Now()
		model := fmt.Sprintf("correction %s correction=%v start=%v d=%d P=%d L=%d o=%d g=%d overlap=%t prio=%s",
			p.dissemination(), p.Correction, p.Start, p.Distance, p.P, L, o, *g, *overlap, *prio)
		rep := &registry.SimReport{Model: model, Seed: *seed, Violations: []registry.ViolationRef{}, Figures: map[string]any{}}
		if *rate > 0 || *runs > 1 {
			if *faults != "" || *svg != "" {
				return nil, fmt.Errorf("--fault-rate and --runs > 1 make a Monte Carlo campaign: not with --faults or --svg")
			}
			last := time.Now()
			figs, err := cs.Campaign(*rate, *runs, *seed, func(done int) {
				if time.Since(last) > 2*time.Second {
					last = time.Now()
					progress(fmt.Sprintf("progress: %d/%d runs, %.1fs", done, *runs, time.Since(t0).Seconds()))
				}
			})
			if err != nil {
				return nil, err
			}
			rep.Mode = "monte-carlo"
			dists := distributions(figs)
			for k, v := range dists {
				rep.Figures[k] = v
			}
			incomplete := 0
			for _, x := range figs {
				if x.Uncolored > 0 {
					incomplete++
				}
			}
			rep.Figures["runs"], rep.Figures["fault_rate"], rep.Figures["runs_with_uncolored"] = *runs, *rate, incomplete
			rep.Violations = simViolations(p, figs)
			var b strings.Builder
			fmt.Fprintf(&b, "%s\n%d runs at %.4g%% failed; runs leaving processes uncolored: %d\n", model, *runs, 100**rate, incomplete)
			fmt.Fprintf(&b, "  %-20s %10s %8s %8s %8s\n", "figure", "mean", "p99", "p99.9", "max")
			for _, k := range []string{"coloring", "quiescence", "correction_latency", "messages", "correction_messages", "uncolored", "g_max"} {
				d := dists[k]
				fmt.Fprintf(&b, "  %-20s %10.2f %8g %8g %8g\n", k, d.Mean, d.P99, d.P999, d.Max)
			}
			rep.Text = b.String()
		} else {
			set, err := parseFaultSet(*faults, p.P)
			if err != nil {
				return nil, err
			}
			sim, err := cs.NewSim(*svg != "")
			if err != nil {
				return nil, err
			}
			res, _, err := cs.Run(sim, set)
			if err != nil {
				return nil, err
			}
			rf := figuresOf(res)
			rep.Mode = "single"
			rep.Figures = map[string]any{"coloring": rf.Coloring, "quiescence": rf.Quiescence, "correction_latency": rf.CorrectionLatency,
				"messages": rf.Messages, "correction_messages": rf.CorrectionMessages, "uncolored": rf.Uncolored, "g_max": rf.GMax,
				"duplicates": rf.Duplicates, "failed": set.Len(), "sync_start": cs.SyncAt()}
			rep.Violations = simViolations(p, []RunFigures{rf})
			rep.Text = fmt.Sprintf("%s\nfailed %v: coloring %d, quiescence %d, correction latency %d, messages %d (correction %d), uncolored %d, g_max %d\n",
				model, set, rf.Coloring, rf.Quiescence, rf.CorrectionLatency, rf.Messages, rf.CorrectionMessages, rf.Uncolored, rf.GMax)
			if *svg != "" {
				if err := os.WriteFile(*svg, TimelineSVG(res, set, model, L), 0o644); err != nil {
					return nil, err
				}
				rep.Text += "timeline written to " + *svg + "\n"
			}
		}
		rep.Seconds = time.Since(t0).Seconds()
		return rep, nil
	}
}

// simViolations: duplicates always; uncolored processes only for checked
// correction, whose guarantee covers any failures before correction (in
// the simulator processes fail from the start). Opportunistic correction's
// uncolored processes are a figure, not a violation.
func simViolations(p Params, figs []RunFigures) []registry.ViolationRef {
	out := []registry.ViolationRef{}
	for i, x := range figs {
		if x.Duplicates > 0 {
			return append(out, registry.ViolationRef{Property: "no-duplicates", Steps: i})
		}
		if x.Uncolored > 0 && p.Correction == corrsm.Checked {
			return append(out, registry.ViolationRef{Property: "non-faulty-liveness", Steps: i})
		}
	}
	return out
}

// parseFaultSet reads "1,5,9" or "16-31"; rank 0 (the root) is refused.
func parseFaultSet(s string, P int) (core.RankSet, error) {
	var set core.RankSet
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || b < a || a < 0 || b >= P {
			return set, fmt.Errorf("--faults %q: bad rank or range %q (ranks 1..%d)", s, part, P-1)
		}
		if a == 0 {
			return set, fmt.Errorf("--faults %q: the root (rank 0) never fails (§2.1)", s)
		}
		for r := a; r <= b; r++ {
			set.Add(core.Rank(r))
		}
	}
	return set, nil
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

func paperCampaign(base Params, L, o, g int64, overlap bool, prio logp.Prio, runs int, seed uint64,
	table1, sec43, fig1b bool, progress func(string)) (*registry.SimReport, error) {
	t0 := time.Now()
	rep := &registry.SimReport{Model: fmt.Sprintf("correction P=%d L=%d o=%d g=%d", base.P, L, o, g), Mode: "paper", Seed: seed,
		Violations: []registry.ViolationRef{}, Figures: map[string]any{}}
	var b strings.Builder
	camp := func(p Params, ratePct float64, label string) ([]RunFigures, *CorrSim, error) {
		cs, err := NewCorrSim(p, L, o, g, overlap, prio)
		if err != nil {
			return nil, nil, err
		}
		last := time.Now()
		figs, err := cs.Campaign(ratePct/100, runs, seed, func(done int) {
			if time.Since(last) > 5*time.Second {
				last = time.Now()
				progress(fmt.Sprintf("progress: %s %.2f%%: %d/%d runs, %.0fs", label, ratePct, done, runs, time.Since(t0).Seconds()))
			}
		})
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
				rep.Violations = append(rep.Violations, simViolations(p, figs)...)
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
					if x.Duplicates > 0 {
						rep.Violations = append(rep.Violations, registry.ViolationRef{Property: "no-duplicates"})
					}
				}
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
				rep.Violations = append(rep.Violations, simViolations(p, figs)...)
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

// TimelineSVG draws one simulated broadcast like the paper's Figure 5:
// time on x, ranks on y; tree sends blue, correction sends orange,
// receives green, an arrow from each send to its receive, failed ranks
// red. Self-contained SVG.
func TimelineSVG(res *logp.Result, failed core.RankSet, title string, L int64) []byte {
	const (
		left, top, rowH, unit = 60.0, 40.0, 22.0, 28.0
	)
	var tmax int64
	for _, e := range res.Log {
		tmax = max(tmax, e.End)
	}
	P := res.P
	w := left + float64(tmax+1)*unit + 20
	h := top + float64(P)*rowH + 50
	x := func(t int64) float64 { return left + float64(t)*unit }
	y := func(r core.Rank) float64 { return top + float64(r)*rowH }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	b.WriteString(`<defs><marker id="a" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="5" markerHeight="5" orient="auto"><path d="M0,0L6,3L0,6z" fill="#555"/></marker></defs>` + "\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="16" font-size="12">%s</text>`+"\n", left, xmlEscape(title))
	for t := int64(0); t <= tmax; t++ {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`, x(t), top-4, x(t), y(core.Rank(P)))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#777">%d</text>`+"\n", x(t), y(core.Rank(P))+14, t)
	}
	for r := 0; r < P; r++ {
		rk := core.Rank(r)
		col := "#000"
		if failed.Has(rk) {
			col = "#c00"
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#fdd"/>`, left, y(rk)+2, float64(tmax)*unit, rowH-4)
		} else if res.DeliveredAt[r] < 0 {
			col = "#888"
		}
		label := fmt.Sprintf("p%d", r)
		if failed.Has(rk) {
			label += " ✗"
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" fill="%s">%s</text>`+"\n", left-6, y(rk)+rowH/2+4, col, label)
		if t := res.DeliveredAt[r]; t >= 0 {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#222"/>`+"\n", x(t), y(rk)+rowH/2)
		}
	}
	bar := func(e logp.Entry, fill string) {
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="#333" stroke-width="0.5"><title>%s</title></rect>`+"\n",
			x(e.Start), y(e.Proc)+5, math.Max(2, float64(e.End-e.Start)*unit), rowH-10, fill, xmlEscape(fmt.Sprintf("%v %v p%d↔p%d [%d,%d)", e.Op, e.Kind, e.Proc, e.Peer, e.Start, e.End)))
	}
	for _, e := range res.Log {
		switch e.Op {
		case logp.OpSend:
			fill := "#4a7fd6"
			stroke := "#4a7fd6"
			if e.Kind == corrsm.KindCorrection {
				fill, stroke = "#f29a2e", "#f29a2e"
			}
			bar(e, fill)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-opacity="0.6" marker-end="url(#a)"/>`+"\n",
				x(e.End), y(e.Proc)+rowH/2, x(e.End+L), y(e.Peer)+rowH/2, stroke)
		case logp.OpRecv:
			bar(e, "#5cb85c")
		case logp.OpDrop:
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#c00" font-size="13">✗</text>`+"\n", x(e.Start), y(e.Proc)+rowH/2+4)
		}
	}
	ly := y(core.Rank(P)) + 32
	for i, it := range []struct{ fill, text string }{{"#4a7fd6", "tree send"}, {"#f29a2e", "correction send"}, {"#5cb85c", "receive"}, {"#fdd", "failed process"}} {
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="14" height="10" fill="%s" stroke="#333" stroke-width="0.5"/><text x="%.1f" y="%.1f">%s</text>`+"\n",
			left+float64(i)*130, ly-9, it.fill, left+float64(i)*130+18, ly, it.text)
	}
	fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#222"/><text x="%.1f" y="%.1f">colored (delivered)</text>`+"\n", left+4*130+7, ly-4, left+4*130+18, ly)
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
