package replica

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/registry"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

func init() {
	registry.Register(&registry.Protocol{
		Name:     "replica",
		Doc:      "P2P-MPI replica coordination (Genaud and Rattanapoka 2009, §4): master sends and commits, MIDs, history, backup re-send",
		Define:   defineReplica,
		Mutants:  replicaMutants(),
		Simulate: simulateReplica,
	})
}

// replicaFlags binds the model flags shared by check and simulate.
type replicaFlags struct {
	program, network, fd, mut string
	procs, degree, crashes    int
	rounds                    int
	rep0, forget              bool
	stack                     stackFlags
	fs                        *flag.FlagSet
}

func bindReplica(fs *flag.FlagSet) *replicaFlags {
	f := &replicaFlags{fs: fs}
	fs.StringVar(&f.program, "program", "ping-pong", "program: "+strings.Join(ProgramNames, "|"))
	fs.IntVar(&f.procs, "procs", 2, fmt.Sprintf("logical processes P (ranks 0..P-1 of the program), 1 … %d", MaxProcs))
	fs.IntVar(&f.degree, "degree", 2, fmt.Sprintf("replication degree r (replicas per logical process), 1 … %d", MaxDegree))
	fs.IntVar(&f.crashes, "crashes", 1, "crash budget F: at most this many replicas crash, at any step, 0 … replicas-1")
	fs.IntVar(&f.rounds, "rounds", 1, fmt.Sprintf("ping-pong exchanges, 0 … %d (0: 1)", MaxRounds))
	fs.BoolVar(&f.rep0, "replicate-rank0", false, "replicate rank 0 too (§4: it is not, by default)")
	fs.StringVar(&f.network, "network", "fifo", "network: fifo (per pair, as TCP)|unordered (multiset)")
	fs.StringVar(&f.fd, "fd", "perfect", "failure detector: perfect (the environment's) or brr|dbrr (the P2P-MPI stack: each host runs its replica and a gossip module, §5)")
	f.stack.bind(fs)
	fs.StringVar(&f.mut, "mutant", "", "test-only broken variant (see ftcheck list)")
	fs.BoolVar(&f.forget, "forget-crashed", false, "replace a crashed replica's state by its initial one (and a host's gossip module by its round and declarations): fewer states, the same verdicts (checker/env forget.go)")
	return f
}

func (f *replicaFlags) params() (Params, error) {
	if err := f.sizes(); err != nil {
		return Params{}, err
	}
	p := Params{Program: f.program, Procs: f.procs, Degree: f.degree, Crashes: f.crashes, Rounds: f.rounds,
		ReplicateRank0: f.rep0, Mutant: mutant.Name(f.mut), ForgetCrashed: f.forget}
	switch f.network {
	case "fifo":
		p.Network = env.FIFO
	case "unordered":
		p.Network = env.Unordered
	default:
		return p, fmt.Errorf("--network %q: want fifo or unordered", f.network)
	}
	switch f.fd {
	case "perfect":
		if err := f.stack.perfectOnly(f.fs); err != nil {
			return p, err
		}
	case "brr", "dbrr":
	default:
		return p, fmt.Errorf("--fd %q: want perfect, brr or dbrr", f.fd)
	}
	if p.Mutant != mutant.None {
		ok := false
		for _, m := range sm.Mutants {
			ok = ok || m == p.Mutant
		}
		if !ok {
			return p, registry.ErrUnknownMutant("replica", f.mut)
		}
	}
	return p, nil
}

func (f *replicaFlags) own() map[string]string {
	out := map[string]string{}
	names := []string{"program", "procs", "degree", "crashes", "rounds", "replicate-rank0", "network", "fd", "mutant", "forget-crashed"}
	if f.fd != "perfect" {
		names = append(names, stackFlagNames...)
	}
	for _, name := range names {
		out[name] = f.fs.Lookup(name).Value.String()
	}
	return out
}

func defineReplica(fs *flag.FlagSet) registry.Builder {
	f := bindReplica(fs)
	return func() (registry.Runner, error) {
		p, err := f.params()
		if err != nil {
			return nil, err
		}
		m, err := f.model(p)
		if err != nil {
			return nil, err
		}
		return registry.Erase[*env.World](m.Model, "replica", f.own()), nil
	}
}

func replicaMutants() []registry.MutantInfo {
	docs := map[mutant.Name]string{
		sm.MutantNonMasterSends:       "every replica sends as the master (no sending agreement)",
		sm.MutantCommitBeforeSend:     "the master commits before it sends DATA",
		sm.MutantHistoryNotConsulted:  "a DATA whose MID is in the history is queued anyway",
		sm.MutantNoBackupResend:       "a new master does not re-send its backup",
		sm.MutantArrivalOrderDelivery: "Recv delivers the first matching message to arrive, not the next MID",
		sm.MutantMIDWithoutTime:       "the MID's logical time is always 0",
		sm.MutantReplicaClock:         "§4.2 literally: one clock per replica, smallest queued MID delivered",
		sm.MutantHistoryAtDelivery:    "a MID enters the history at delivery, not at arrival",
		sm.MutantNoLogRecommit:        "§4.2 literally: a new master does not re-commit its log",
		sm.MutantResendOwnMID:         "a new master re-sends its backup under MIDs of its own (comm = its replica index)",
		sm.MutantLiteralReception:     "§4.2 literally: history at delivery and smallest queued MID extracted (both duplicate filters off)",
		sm.MutantRecvIgnoresSource:    "a Recv with an explicit source matches any source",
		sm.MutantAnyTagMIDOrder:       "Recv(src, ANY_TAG) takes the smallest MID, not the earliest message src sent (MPI non-overtaking broken)",
		sm.MutantMIDOrderIgnoresDst:   "the MID order of the backup, log and history ignores the destination (two sends' MIDs collide)",
	}
	return registry.MutantInfos(sm.Mutants, docs)
}

// simulateReplica is `ftcheck simulate replica`: with
// --failure-probability, §4.5's Eq. 1–2 and their Monte Carlo check;
// otherwise seeded random walks of the model.
func simulateReplica(fs *flag.FlagSet) registry.SimBuilder {
	f := bindReplica(fs)
	fp := fs.Bool("failure-probability", false, "§4.5: print p_app (Eq. 2) for --p --r --lambda --t --shape, and with --trials a Monte Carlo estimate")
	P := fs.Int("p", 10, fmt.Sprintf("failure probability: MPI processes p, 1 … %d", MaxFailureP))
	R := fs.Int("r", 2, fmt.Sprintf("failure probability: replication degree r, 1 … %d", MaxFailureR))
	lambda := fs.Float64("lambda", 1e-3, "failure probability: Weibull rate λ (per time unit of --t)")
	T := fs.Float64("t", 100, "failure probability: run duration t")
	shape := fs.Float64("shape", 1, "failure probability: Weibull shape δ")
	rank0 := fs.Bool("rank0-unreplicated", false, "failure probability: rank 0 has one replica (§4), which Eq. 2 ignores")
	trials := fs.Int("trials", 0, fmt.Sprintf("failure probability: Monte Carlo trials, 0 … %d (0: none)", MaxTrials))
	walks := fs.Int("walks", 100, fmt.Sprintf("random walks, 1 … %d", MaxWalks))
	seed := fs.Uint64("seed", 1, "seed of the Monte Carlo or of the walks")
	crashProb := fs.Float64("crash-prob", 0.02, "random walks: probability that a step is a crash while the budget allows")
	maxSteps := fs.Int("max-steps", 10000, fmt.Sprintf("random walks: steps per walk, 1 … %d", MaxSteps))
	return func(ctx context.Context, progress func(string)) (*registry.SimReport, error) {
		if err := simSizes(*fp, *P, *R, *trials, *walks, *maxSteps); err != nil {
			return nil, err
		}
		if *fp {
			rep, err := FailureProbability(FailureParams{P: *P, R: *R, Lambda: *lambda, T: *T, Shape: *shape, Rank0Unrep: *rank0, Trials: *trials, Seed: *seed})
			if err != nil {
				return nil, err
			}
			figs := map[string]any{"f": rep.F, "p_app": rep.PApp, "p": *P, "r": *R, "lambda": *lambda, "t": *T, "shape": *shape, "rank0_unreplicated": *rank0}
			text := fmt.Sprintf("f = %.6g (Eq. 1), p_app = %.6g (Eq. 2%s)", rep.F, rep.PApp, map[bool]string{true: ", rank 0 unreplicated", false: ""}[*rank0])
			if rep.PAppMC != nil {
				figs["p_app_mc"], figs["failures"], figs["trials"], figs["ci95"], figs["p_app_in_ci95"] = *rep.PAppMC, rep.Failures, rep.Trials, rep.CI95, *rep.InCI
				text += fmt.Sprintf("\nMonte Carlo: %d failures in %d trials, p_app_mc = %.6g, 95%% interval [%.6g, %.6g], p_app inside: %v",
					rep.Failures, rep.Trials, *rep.PAppMC, rep.CI95[0], rep.CI95[1], *rep.InCI)
			}
			return &registry.SimReport{Model: "replica", Mode: "failure-probability", Seed: *seed, Violations: []registry.ViolationRef{}, Figures: figs, Text: text + "\n"}, nil
		}
		p, err := f.params()
		if err != nil {
			return nil, err
		}
		p.CrashProb = *crashProb
		m, err := f.model(p)
		if err != nil {
			return nil, err
		}
		res := checker.Walk(m.Model, registry.SimWalkOptions(ctx, progress, checker.WalkOptions{Walks: *walks, MaxSteps: *maxSteps, Seed: *seed}))
		if res.Err != nil {
			return nil, res.Err
		}
		rep := &registry.SimReport{Model: "replica", Mode: "random-walks", Seed: *seed, Seconds: res.Seconds, Violations: []registry.ViolationRef{}, Interrupted: res.Canceled}
		quiet := 0
		for _, w := range res.PerWalk {
			if w.Quiescent {
				quiet++
			}
		}
		if res.Violation != nil {
			res.Violation.Params = f.own()
			res.Violation.Params[registry.ModelParam] = "replica"
			rep.Trace = res.Violation
			rep.Violations = append(rep.Violations, registry.ViolationRef{Property: res.Violation.Violation.Property, Steps: len(res.Violation.Steps)})
		}
		rep.Figures = map[string]any{"walks": res.Walks, "steps": res.Steps, "quiescent": quiet, "steps_per_sec": res.StepsPerSec}
		rep.Text = fmt.Sprintf("%s: %d walks, %d steps, %d quiescent, %.0f steps/s\n", m.Name(), res.Walks, res.Steps, quiet, res.StepsPerSec)
		return rep, nil
	}
}
