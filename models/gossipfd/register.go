package gossipfd

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/registry"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

func init() {
	registry.Register(&registry.Protocol{
		Name:     "gossipfd",
		Doc:      "gossip heartbeat failure detectors of P2P-MPI (Genaud, Rattanapoka §5): random, RR, BRR, DBRR, with the ping phase, in the synchronous round model",
		Define:   defineCheck,
		Mutants:  mutantInfos(),
		Simulate: simulateGossipfd,
	})
}

// mutantInfos lists the test-only broken variants of --mutant.
func mutantInfos() []registry.MutantInfo {
	docs := map[mutant.Name]string{
		fd.MutantBRROffset2r:       "BRR (Eq. 4) offsets 2^r instead of 2^(r−1)",
		fd.MutantDBRRSameDirection: "DBRR (Eq. 5) second half clockwise again",
		fd.MutantMergeLastReceived: "merge adopts the received entries instead of the maximum (Fig. 11)",
		fd.MutantCleanupGE:         "suspect when g − lastInc ≥ T_cleanup instead of >",
		fd.MutantPingNeverAnswers:  "a host never answers PING (§5.3's consensus phase is void)",
		fd.MutantNeverSuspect:      "the cleanup check never fires: no host is ever suspected (completeness fails)",
		fd.MutantRROffsetRPlus1:    "RR (Eq. 3) offsets r+1 instead of r",
		fd.MutantCleanupLate:       "the cleanup check runs one round late (suspects at lastInc + T_cleanup + 2)",
		fd.MutantMergeSenderRound:  "merge records the heartbeat's own round (its value) as lastInc instead of the local round",
	}
	return registry.MutantInfos(fd.Mutants, docs)
}

// defineCheck is `ftcheck check gossipfd --variant random|rr|brr|dbrr --n N
// --crashes F --cleanup C [--ping=true|false] [--symmetry]`: every crash
// choice within the budget, in the synchronous round model (CheckModel,
// --timing rounds) or in checker/env's bounded-delay environment
// (NewEnvModel, --timing bounded). C is in rounds of T_gossip (0: the
// paper's setting, PaperCleanup with CleanupMargin). Both models offer
// rotation symmetry for RR, BRR and DBRR (CheckModel.Canonical,
// SymmetricEnv). --symmetry is ftcheck check's own flag: when the flag set
// has it and it is true, the random variant is refused with an error (its
// partner plan names hosts, so rotation is not a symmetry).
func defineCheck(fs *flag.FlagSet) registry.Builder {
	variant := fs.String("variant", "brr", "destination function: random, rr, brr or dbrr")
	n := fs.Int("n", 4, fmt.Sprintf("number of hosts, 2 … %d", MaxCheckN))
	crashes := fs.Int("crashes", 1, "crash budget F: at most F hosts crash, each before any round of the crash window; 0 … n")
	cleanup := fs.Int("cleanup", 0, "T_cleanup in rounds of T_gossip, 0 … 1000 (0: the paper's setting: DBRR 3⌈log2 n⌉, BRR 2⌈log2 n⌉, RR T_min + ⌈log2 n⌉)")
	ping := fs.Bool("ping", true, "the consensus (ping) phase of §5.3 before a declaration")
	pong := fs.String("on-pong", "refresh", "what a successful ping does: refresh (restart the timeout) or withdraw (only drop the suspicion)")
	routing := fs.String("routing", "fixed", "fixed (Eqs. 3–5 over all n) or live (over the hosts not declared)")
	window := fs.Int("window", 0, "crashes happen before rounds 1…window; window 0 … 1000 (0: two cycles)")
	horizon := fs.Int("horizon", 0, "rounds run, 0 … 1000 (0: window + the completeness bound + 1)")
	bound := fs.Int("detect-bound", 0, "completeness bound in rounds after the crash, 0 … 1000 (0: T_cleanup + W, W the rounds the crashed host's last heartbeat takes to reach every host, worst phase; see DetectBound); with --timing bounded, in the observer's rounds after the crashed host's last round (0: the same when Δ < T_gossip, else T_cleanup + two cycles + 1)")
	seed := fs.Uint64("seed", 1, "random variant: seed of the partner plan")
	timing := fs.String("timing", "rounds", "rounds (the synchronous round model, every crash choice) or bounded (checker/env bounded delay: every order of every tick's steps, delays in [1, Δ] ticks; needs --max-rounds)")
	delta := fs.Int("delta", 1, fmt.Sprintf("with --timing bounded: message delay bound Δ in ticks, 1 … %d", MaxCheckDelta))
	tgossip := fs.Uint64("t-gossip", 4, fmt.Sprintf("with --timing bounded: T_gossip in ticks, 1 … %d", MaxTicks))
	pingTimeout := fs.Uint64("ping-timeout", 3, fmt.Sprintf("with --timing bounded: ping timeout in ticks, 1 … %d (> 2Δ, < T_gossip)", MaxTicks))
	maxRounds := fs.Uint64("max-rounds", 8, fmt.Sprintf("with --timing bounded: gossip rounds each host runs, 1 … %d (unset: the larger of 8 and completeness bound + cycle + 1, so a crash in every phase of the cycle is checked)", MaxRounds))
	liveness := fs.Bool("liveness", false, "with --timing bounded: also check completeness-eventually over lassos, which reports the worst detection latency in ticks (the whole state graph is kept: no symmetry)")
	mut := fs.String("mutant", "", "test-only broken variant (see ftcheck list)")
	forget := fs.Bool("forget-crashed", false, "with --timing bounded: replace a crashed host's state by what the properties read of it (round, suspicions, declarations): fewer states, the same verdicts (checker/env forget.go)")
	return func() (registry.Runner, error) {
		if err := checkSizes(*n, *crashes, *cleanup, *window, *horizon, *bound, *delta, *tgossip, *pingTimeout, *maxRounds); err != nil {
			return nil, err
		}
		v, err := fd.ParseVariant(*variant)
		if err != nil {
			return nil, err
		}
		c := fd.Config{N: *n, Variant: v, Cleanup: uint64(*cleanup), Ping: *ping, Mutant: mutant.Name(*mut)}
		if c.Mutant != mutant.None && !slices.Contains(fd.Mutants, c.Mutant) {
			// fd.ForgetMutants are test-only wrong Forgets, not --mutant's.
			return nil, registry.ErrUnknownMutant("gossipfd", *mut)
		}
		switch *pong {
		case "refresh":
		case "withdraw":
			c.OnPong = fd.PongWithdrawOnly
		default:
			return nil, fmt.Errorf("--on-pong %q: want refresh or withdraw", *pong)
		}
		switch *routing {
		case "fixed":
		case "live":
			c.Routing = fd.RouteLive
		default:
			return nil, fmt.Errorf("--routing %q: want fixed or live", *routing)
		}
		params := map[string]string{}
		fs.VisitAll(func(f *flag.Flag) {
			switch f.Name {
			case "variant", "n", "crashes", "cleanup", "ping", "on-pong", "routing", "window", "horizon", "detect-bound", "seed", "mutant",
				"timing", "delta", "t-gossip", "ping-timeout", "max-rounds", "liveness", "forget-crashed":
				params[f.Name] = f.Value.String()
			}
		})
		cyc := fd.Cycle(v, *n)
		if v == fd.Random {
			if c.Plan, err = RandomPlan(*n, RandomPlanRounds, *seed); err != nil {
				return nil, err
			}
			cyc = RandomPlanRounds / 4
		}
		if f := fs.Lookup("symmetry"); f != nil && f.Value.String() == "true" && !c.RotationInvariant() {
			return nil, fmt.Errorf("--symmetry: the %v variant is not invariant under rotation of host ids (its partner plan names hosts); check it without --symmetry", v)
		}
		if c.Cleanup == 0 {
			if v == fd.Random {
				return nil, fmt.Errorf("--cleanup: the random variant has no paper setting; give T_cleanup in rounds")
			}
			C, _ := fd.PaperCleanup(v, *n, fd.CleanupMargin)
			c.Cleanup = uint64(C)
		}
		// Traces record the settings the defaults (0) resolved to, those
		// the model's name gives: they rebuild the same model.
		params["cleanup"] = strconv.FormatUint(c.Cleanup, 10)
		switch *timing {
		case "rounds":
		case "bounded":
			c.TGossip, c.PingTimeout, c.MaxRounds = *tgossip, *pingTimeout, *maxRounds
			B, iso := *bound, 0
			if B == 0 {
				if B, iso, err = EnvDetectBound(&c, *delta); err != nil {
					return nil, err
				}
			}
			if !flagSet(fs, "max-rounds") {
				c.MaxRounds = max(c.MaxRounds, uint64(DefaultMaxRounds(&c, B)))
			}
			params["detect-bound"], params["max-rounds"] = strconv.Itoa(B), strconv.FormatUint(c.MaxRounds, 10)
			m, err := NewEnvModel(EnvParams{Node: c, Crashes: *crashes, Delta: *delta, DetectBound: B, Isolation: iso, Liveness: *liveness, ForgetCrashed: *forget})
			if err != nil {
				return nil, err
			}
			if c.RotationInvariant() {
				return registry.Erase[*env.World](SymmetricEnv{m}, "gossipfd", params), nil
			}
			return registry.Erase(m, "gossipfd", params), nil
		default:
			return nil, fmt.Errorf("--timing %q: want rounds or bounded", *timing)
		}
		if *forget {
			return nil, fmt.Errorf("--forget-crashed needs --timing bounded (the round model is not an env model)")
		}
		cc := CheckConfig{Node: c, Crashes: *crashes, CrashWindow: *window, Horizon: *horizon, DetectBound: *bound}
		if cc.CrashWindow == 0 {
			cc.CrashWindow = 2 * cyc
		}
		if cc.DetectBound == 0 {
			if cc.DetectBound, cc.Isolation, err = DetectBound(&c); err != nil {
				return nil, err
			}
		}
		if cc.Horizon == 0 {
			cc.Horizon = cc.CrashWindow + cc.DetectBound + 1
		}
		params["window"], params["horizon"], params["detect-bound"] = strconv.Itoa(cc.CrashWindow), strconv.Itoa(cc.Horizon), strconv.Itoa(cc.DetectBound)
		m, err := NewCheckModel(cc)
		if err != nil {
			return nil, err
		}
		if !m.SymmetryValid() {
			return registry.Erase[*RoundState](noSymmetry{m}, "gossipfd", params), nil
		}
		return registry.Erase[*RoundState](m, "gossipfd", params), nil
	}
}

// noSymmetry hides CheckModel's Canonical where rotation is not a symmetry
// (the random plan names hosts).
type noSymmetry struct{ checker.Model[*RoundState] }

// simulateGossipfd is `ftcheck simulate gossipfd`: the analyses of
// DefineSimulate.
func simulateGossipfd(fs *flag.FlagSet) registry.SimBuilder {
	run := DefineSimulate(fs)
	return func(ctx context.Context, progress func(string)) (*registry.SimReport, error) {
		if err := registry.CheckFits(ctx, simMemory(fs), "--n"); err != nil {
			return nil, fmt.Errorf("--n %v: %w", fs.Lookup("n").Value, err)
		}
		t0 := time.Now()
		figs, text, err := run()
		if err != nil {
			return nil, err
		}
		seed, _ := fs.Lookup("seed").Value.(flag.Getter).Get().(uint64)
		return &registry.SimReport{Model: "gossipfd", Mode: "analysis", Seed: seed, Seconds: time.Since(t0).Seconds(),
			Violations: []registry.ViolationRef{}, Figures: figs, Text: text}, nil
	}
}
