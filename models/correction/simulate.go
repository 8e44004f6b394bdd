package correction

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ftkernel/ftkernel/checker/logp"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

func simulateCorrection(fs *flag.FlagSet) registry.SimBuilder {
	f := bindCorrection(fs, 65536, MaxSimP)
	g := fs.Int("g", 1, "LogP gap g, 0 … o (never delays anything)")
	overlap := fs.Bool("overlap", true, "a send overhead may overlap a receive overhead on one process")
	prio := fs.String("prio", "recv", "tie between a completing receive and a free send port: recv|send")
	faults := fs.String("faults", "", "ranks failed from the start, e.g. 1,5,9 or 16-31 (never 0)")
	rate := fs.Float64("fault-rate", 0, "Monte Carlo: fraction of non-root processes failed per run (e.g. 0.01)")
	runs := fs.Int("runs", 1, "Monte Carlo: number of runs, 1 … 1000000 (fault sets, and gossip partners, drawn from --seed and the run index); > 1 without --fault-rate: fault-free runs")
	seed := fs.Uint64("seed", 1, "seed of the fault sets and of the gossip partner sequences; the same seed and flags give the same output")
	svg := fs.String("svg", "", "write a timeline picture of the (single) run to this SVG file")
	table1 := fs.Bool("table1", false, "reproduce Table 1: checked synchronized correction on binomial, Lamé k=2, 4-ary and optimal trees at 0.01%…4% failed, --runs per tree and rate")
	sec43 := fs.Bool("section43", false, "reproduce §4.3 (opportunistic): optimized overlapped opportunistic correction (--d) at 0.01%…4% failed, --runs per tree and rate; count uncolored processes")
	fig1b := fs.Bool("fig1b", false, "reproduce Figure 1b: checked synchronized correction latency, interleaved vs in-order binomial tree, --runs per rate")
	return func(ctx context.Context, progress func(string)) (*registry.SimReport, error) {
		if err := flagcheck.Int("runs", int64(*runs), 1, 1_000_000, ""); err != nil {
			return nil, err
		}
		p, err := f.params()
		if err != nil {
			return nil, err
		}
		if err := flagcheck.Int("g", int64(*g), 0, int64(f.o), "the gap is at most the overhead"); err != nil {
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
		L, o := int64(f.L), int64(f.o)
		switch {
		case (*table1 || *sec43 || *fig1b) && p.Gossip != nil:
			return nil, fmt.Errorf("--table1, --section43 and --fig1b choose their own trees: not with --tree gossip")
		case *table1, *sec43, *fig1b:
			q := p
			if *sec43 {
				q.Correction = corrsm.OptimizedOpportunistic
			}
			if err := registry.CheckFits(ctx, simMemory(q, o, campaignWorkers(*runs), true, false), "--P"); err != nil {
				return nil, fmt.Errorf("--P %d: %w", p.P, err)
			}
			return paperCampaign(ctx, p, L, o, int64(*g), *overlap, pr, *runs, *seed, *table1, *sec43, *fig1b, progress)
		}
		if p.Gossip != nil {
			p.Gossip.Seed = *seed
		}
		workers, lower := 1, "--P"
		if *rate > 0 || *runs > 1 {
			workers = campaignWorkers(*runs)
		}
		if *svg != "" {
			lower = "--P (or drop --svg)"
		}
		if err := registry.CheckFits(ctx, simMemory(p, o, workers, false, *svg != ""), lower); err != nil {
			return nil, fmt.Errorf("--P %d: %w", p.P, err)
		}
		cs, err := NewCorrSim(p, L, o, int64(*g), *overlap, pr)
		if err != nil {
			return nil, err
		}
		p = cs.Params
		t0 := time.Now()
		model := fmt.Sprintf("correction %s correction=%v start=%v%s d=%d P=%d L=%d o=%d g=%d overlap=%t prio=%s",
			p.dissemination(), p.Correction, p.Start, p.ruleNames(), p.Distance, p.P, L, o, *g, *overlap, *prio)
		if p.Mutant != "" {
			model += " mutant=" + string(p.Mutant)
		}
		rep := &registry.SimReport{Model: model, Seed: *seed, Violations: []registry.ViolationRef{}, Figures: map[string]any{}}
		if !(*rate >= 0 && *rate < 1) {
			return nil, fmt.Errorf("--fault-rate %v: want a fraction in [0, 1)", *rate)
		}
		if *rate > 0 || *runs > 1 {
			if *faults != "" || *svg != "" {
				return nil, fmt.Errorf("--fault-rate and --runs > 1 make a Monte Carlo campaign: not with --faults or --svg")
			}
			last := time.Now()
			figs, err := cs.Campaign(ctx, *rate, *runs, *seed, func(done int) {
				if time.Since(last) > 2*time.Second {
					last = time.Now()
					progress(fmt.Sprintf("progress: %d/%d runs, %.1fs", done, *runs, time.Since(t0).Seconds()))
				}
			})
			if err != nil {
				return nil, err
			}
			rep.Mode = "monte-carlo"
			rep.Interrupted = len(figs) < *runs
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
			rep.Figures["runs"], rep.Figures["fault_rate"], rep.Figures["runs_with_uncolored"] = len(figs), *rate, incomplete
			var b strings.Builder
			fmt.Fprintf(&b, "%s\n%d runs at %.4g%% failed; runs leaving processes uncolored: %d\n", model, len(figs), 100**rate, incomplete)
			fmt.Fprintf(&b, "  %-20s %10s %8s %8s %8s\n", "figure", "mean", "p99", "p99.9", "max")
			for _, k := range []string{"coloring", "quiescence", "correction_latency", "messages", "correction_messages", "uncolored", "g_max"} {
				d := dists[k]
				fmt.Fprintf(&b, "  %-20s %10.2f %8g %8g %8g\n", k, d.Mean, d.P99, d.P999, d.Max)
			}
			rep.Violations = simViolations(figs, *seed, &b)
			rep.Text = b.String()
		} else {
			set, err := parseFaultSet(*faults, p.P)
			if err != nil {
				return nil, err
			}
			sims, err := cs.NewSims(*svg != "")
			if err != nil {
				return nil, err
			}
			res, viol, err := cs.RunChecked(sims, set, 0)
			if err != nil {
				return nil, err
			}
			rf := figuresOf(res)
			rf.Violation = viol
			rep.Mode = "single"
			rep.Figures = map[string]any{"coloring": rf.Coloring, "quiescence": rf.Quiescence, "correction_latency": rf.CorrectionLatency,
				"messages": rf.Messages, "correction_messages": rf.CorrectionMessages, "uncolored": rf.Uncolored, "g_max": rf.GMax,
				"duplicates": rf.Duplicates, "failed": set.Len(), "sync_start": cs.SyncAt()}
			var b strings.Builder
			fmt.Fprintf(&b, "%s\nfailed %v: coloring %d, quiescence %d, correction latency %d, messages %d (correction %d), uncolored %d, g_max %d\n",
				model, set, rf.Coloring, rf.Quiescence, rf.CorrectionLatency, rf.Messages, rf.CorrectionMessages, rf.Uncolored, rf.GMax)
			rep.Violations = simViolations([]RunFigures{rf}, *seed, &b)
			rep.Text = b.String()
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

// simViolations reports the first run of figs that violated a guarantee
// (RunChecked: integrity, no duplicates and the message bound for every
// variant, every live process colored for checked and delayed correction,
// optimized covering opportunistic), as a ViolationRef whose Steps is the
// run's number, and writes a line with the seed and the fault set that
// reproduce it to b. Opportunistic correction's uncolored processes are a
// figure, not a violation.
func simViolations(figs []RunFigures, seed uint64, b *strings.Builder) []registry.ViolationRef {
	n := 0
	var first *RunViolation
	for _, x := range figs {
		if x.Violation != nil {
			n++
			if first == nil {
				first = x.Violation
			}
		}
	}
	if first == nil {
		return []registry.ViolationRef{}
	}
	fmt.Fprintf(b, "VIOLATION of %s in %d of %d runs; first: run %d (seed %d, failed %v): %s\n",
		first.Err.Property, n, len(figs), first.Run, seed, first.Faults, first.Err.Detail)
	return []registry.ViolationRef{{Property: first.Err.Property, Steps: first.Run}}
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
