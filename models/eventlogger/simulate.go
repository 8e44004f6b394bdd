package eventlogger

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// The thesis's anchors (§5.3.1, Fig. 5.4) the default cost model is
// fitted to: the centralized logger's and Classic Paxos's saturation
// throughputs, in determinants per ms.
const (
	AnchorCentralized = 83.0
	AnchorClassic     = 28.0
	// DefaultLatency is the one-way network delay assumed (µs): the
	// thesis gives none; Gigabit Ethernet with TCP is of this order.
	DefaultLatency = 100.0
	DefaultCores   = 8 // 2 × Quad-Core Xeon L5420 per node (§5.3)
)

// Calibrate fits CostModel.Msg and Consensus to the two anchors, from
// runs of the machines: the centralized logger handles hCen network
// messages and one store per determinant, so 1000/83 µs = hCen·Msg +
// Consensus; Classic's coordinator in the §5.3.1 deployment (a dedicated
// proposer, every acceptor taking part) handles hCls messages and no
// store, so 1000/28 µs = hCls·Msg. It returns the model and the two
// counts.
func Calibrate(f int) (CostModel, float64, float64, error) {
	cen, err := Count(CountParams{Kind: el.Centralized, F: f, Procs: 1, Dets: 2})
	if err != nil {
		return CostModel{}, 0, 0, err
	}
	cls, err := Count(CountParams{Kind: el.Classic, F: f, Procs: 1, Dets: 2, Experimental: true, AllAcceptors: true})
	if err != nil {
		return CostModel{}, 0, 0, err
	}
	m := 1000 / AnchorClassic / cls.BusiestLoggerMsgs
	c := 1000/AnchorCentralized - cen.BusiestLoggerMsgs*m
	return CostModel{Msg: m, Consensus: c, Latency: DefaultLatency, Cores: DefaultCores}, cen.BusiestLoggerMsgs, cls.BusiestLoggerMsgs, nil
}

// Ranges of simulate's flags.
const (
	MaxSimProcs = 1024
	MaxSimF     = 7
	MaxSimDets  = 1000
	MaxWalks    = 100_000
)

func defineSimulate(fs *flag.FlagSet) registry.SimBuilder {
	logger := fs.String("logger", "parallel", "centralized|classic|parallel")
	f := fs.Int("f", 1, fmt.Sprintf("acceptor failures tolerated f, 1 … %d", MaxSimF))
	procs := fs.Int("procs", 2, fmt.Sprintf("application processes n, 1 … %d", MaxSimProcs))
	deployment := fs.String("deployment", "table", "table (Table 5.1: Parallel's coordinator-acceptor co-located) or experimental (§5.3.1: dedicated acceptor nodes, Classic's coordinator on its own node)")
	separate := fs.Bool("separate-learners", false, "Classic experimental deployment: learners on 2f+1 nodes of their own (the 6-node reading of §5.3.1)")
	all := fs.Bool("all-acceptors", false, "every acceptor takes part (default: only a quorum of f+1, Table 5.1's best case)")
	failAcc := fs.Bool("fail-acceptor", false, "one acceptor of the quorum (not the coordinator) is down")
	coordChange := fs.Bool("coordinator-change", false, "Classic: the coordinator R0 is down and R1 has taken over")
	dets := fs.Int("dets", 3, fmt.Sprintf("determinants saved per process in the counting runs, 1 … %d", MaxSimDets))
	msgUS := fs.Float64("msg-us", 0, "cost model: CPU µs per network message sent or received (0: fitted to the thesis's anchors, see docs/eventlogger.md)")
	consUS := fs.Float64("consensus-us", 0, "cost model: CPU µs per consensus at each storing node (0: fitted)")
	latUS := fs.Float64("latency-us", DefaultLatency, "cost model: one-way network latency in µs")
	cores := fs.Int("cores", DefaultCores, "cost model: cores per logger node")
	dur := fs.Float64("duration-us", 20000, "throughput run: simulated µs measured (after 10% more of warm-up)")
	walks := fs.Int("walks", 0, fmt.Sprintf("also run this many random walks of the check model (linearizability, termination), 0 … %d", MaxWalks))
	saves := fs.Int("saves", 20, "random walks: saves per process")
	crashes := fs.Int("crashes", 1, "random walks: crash budget")
	recoveries := fs.Int("recoveries", 0, "random walks: recovery budget (restarts from stable storage)")
	seed := fs.Uint64("seed", 1, "random walks: seed")
	mut := fs.String("mutant", "", "random walks: test-only broken variant")
	return func(ctx context.Context, progress func(string)) (*registry.SimReport, error) {
		if err := flagcheck.First(
			flagcheck.Int("f", int64(*f), 1, MaxSimF, ""),
			flagcheck.Int("procs", int64(*procs), 1, MaxSimProcs, ""),
			flagcheck.Int("dets", int64(*dets), 1, MaxSimDets, ""),
			flagcheck.Int("walks", int64(*walks), 0, MaxWalks, ""),
			flagcheck.Int("cores", int64(*cores), 1, 1024, ""),
		); err != nil {
			return nil, err
		}
		k, err := el.ParseKind(*logger)
		if err != nil {
			return nil, fmt.Errorf("--logger: %v", err)
		}
		if *deployment != "table" && *deployment != "experimental" {
			return nil, fmt.Errorf("--deployment %q: want table or experimental", *deployment)
		}
		if !(*dur > 0 && *dur <= 1e7) || *latUS < 0 || *msgUS < 0 || *consUS < 0 {
			return nil, fmt.Errorf("cost model: want --duration-us in (0, 1e7] and non-negative costs")
		}
		cp := CountParams{Kind: k, F: *f, Procs: *procs, Experimental: *deployment == "experimental", SeparateLearners: *separate,
			AllAcceptors: *all, FailAcceptor: *failAcc, CoordinatorChange: *coordChange, Dets: *dets}
		cnt, err := Count(cp)
		if err != nil {
			return nil, err
		}
		cost, hCen, hCls, err := Calibrate(1)
		if err != nil {
			return nil, err
		}
		if *msgUS > 0 {
			cost.Msg = *msgUS
		}
		if *consUS > 0 {
			cost.Consensus = *consUS
		}
		cost.Latency, cost.Cores = *latUS, *cores
		var thr DESResult
		if !cp.FailAcceptor && !cp.CoordinatorChange {
			if thr, err = Throughput(DESParams{Count: cp, Cost: cost, Duration: *dur, Warmup: *dur / 10}); err != nil {
				return nil, err
			}
		}
		rep := &registry.SimReport{Model: "eventlogger", Mode: "counts", Seed: *seed, Violations: []registry.ViolationRef{}}
		rep.Figures = map[string]any{
			"logger": k.String(), "f": *f, "procs": *procs, "deployment": *deployment, "all_acceptors": *all,
			"steps_per_determinant": cnt.Steps, "messages_per_determinant": cnt.Messages,
			"messages_sent_per_determinant": cnt.Sent, "nodes": cnt.Nodes, "causal_kinds": cnt.Kinds,
			"setup_messages": cnt.Setup, "saves_measured": cnt.Saves,
			"busiest_logger_messages_per_determinant": cnt.BusiestLoggerMsgs,
			"throughput": thr.Throughput, "latency_ms": thr.Latency, "busiest_process": thr.Busiest,
			"busiest_utilisation": thr.Utilisation, "cost_model": cost,
		}
		var b strings.Builder
		fmt.Fprintf(&b, "eventlogger %v f=%d procs=%d deployment=%s all-acceptors=%v\n", k, *f, *procs, *deployment, *all)
		fmt.Fprintf(&b, "per determinant (%d saves, one at a time, each to quiescence): %g communication steps, %g messages the acknowledgement waited for (%s), %g messages sent in all\n",
			cnt.Saves, cnt.Steps, cnt.Messages, cnt.KindsString(), cnt.Sent)
		fmt.Fprintf(&b, "nodes used: %d (%d application processes + %d logger node(s)); setup messages (phase 1): %d\n", cnt.Nodes, *procs, cnt.Nodes-*procs, cnt.Setup)
		if thr.Saves > 0 {
			fmt.Fprintf(&b, "throughput: %.1f det/ms, mean latency %.3f ms (busiest process %s at %.0f%%) under msg=%.2fµs consensus=%.2fµs latency=%gµs cores=%d (fitted from %g and %g messages per determinant)\n",
				thr.Throughput, thr.Latency, thr.Busiest, 100*thr.Utilisation, cost.Msg, cost.Consensus, cost.Latency, cost.Cores, hCen, hCls)
		}
		if *walks > 0 {
			p := Params{Kind: k, Procs: *procs, F: *f, Experimental: cp.Experimental, Saves: *saves, Remove: true, Crashes: *crashes, Recoveries: *recoveries, Timing: env.BoundedDelay, Delta: 1, CrashProb: 0.01}
			p.Mutant = mutantName(*mut)
			fl := &flags{logger: k.String(), deployment: *deployment, procs: *procs, f: *f, saves: *saves, remove: true, crashes: *crashes, recoveries: *recoveries, delta: 1, mut: *mut}
			if _, err := fl.build(); err != nil {
				return nil, err
			}
			m, err := NewModel(p)
			if err != nil {
				return nil, err
			}
			res := checker.Walk[*env.World](m, registry.SimWalkOptions(ctx, progress, checker.WalkOptions{Walks: *walks, MaxSteps: 400 * *saves * *procs, Seed: *seed}))
			if res.Err != nil {
				return nil, res.Err
			}
			rep.Mode = "counts+random-walks"
			rep.Seconds = res.Seconds
			rep.Interrupted = res.Canceled
			quiet := 0
			for _, st := range res.PerWalk {
				if st.Quiescent {
					quiet++
				}
			}
			rep.Figures["walks"], rep.Figures["walk_steps"], rep.Figures["quiescent_walks"] = res.Walks, res.Steps, quiet
			fmt.Fprintf(&b, "random walks: %d walks, %d steps, %d ended quiescent (linearizability and termination checked there), %d saves per process, crash budget %d, recovery budget %d\n",
				res.Walks, res.Steps, quiet, *saves, *crashes, *recoveries)
			if res.Violation != nil {
				params := fl.own2()
				res.Violation.Params = params
				rep.Trace = res.Violation
				rep.Violations = append(rep.Violations, registry.ViolationRef{Property: res.Violation.Violation.Property, Steps: len(res.Violation.Steps)})
				fmt.Fprintf(&b, "violation of %s after %d steps\n", res.Violation.Violation.Property, len(res.Violation.Steps))
			} else {
				b.WriteString("all checked properties hold on every walk\n")
			}
		}
		rep.Text = b.String()
		return rep, nil
	}
}
