package correction

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

func init() {
	registry.Register(&registry.Protocol{
		Name:     "correction",
		Doc:      "Corrected Tree broadcast (Küttler et al., PPoPP'19): tree dissemination + ring correction; root rank 0 never fails",
		Define:   defineCorrection,
		Mutants:  correctionMutants(),
		Simulate: simulateCorrection,
		// Campaign consults registry.RunLog (runrecord.go).
		ShardsSimulate: true,
	})
}

// BcastValue is the value the root broadcasts in every model.
const BcastValue corrsm.Value = 42

// Params are the parameters of a Corrected Tree model.
type Params struct {
	P          int
	Tree       corrsm.Tree
	Correction corrsm.CorrectionKind
	Distance   int
	Start      corrsm.StartMode
	Delay      uint64
	// Early is what a process colored by a correction message does
	// (corrsm.EarlyForwards, the default, or corrsm.EarlySilent).
	Early corrsm.EarlyRule
	// CoverStop and NoOverRoot are flogsim's rules (corrsm.Config;
	// docs/correction-flogsim.md), off by default.
	CoverStop, NoOverRoot bool
	Mutant                mutant.Name
	// Faults is the env crash budget: up to Faults non-root processes fail,
	// at any step (before or during the broadcast).
	Faults int
	// FaultsBeforeCorrection confines the failures to before the
	// synchronized start of correction (synchronized start only).
	FaultsBeforeCorrection bool
	// Timing is env.Asynchronous (default) or env.LockStepRounds: each
	// round every process with a send slot sends one message, and every
	// message of the round is delivered, in any order, before the next.
	Timing env.Timing
	// Loss is env.LossNone (default) or env.LossOnCrash: the messages in
	// flight from a crashed process may be lost, each loss its own step.
	Loss env.Loss
	// Compact: corrsm.Config.Compact (set for exhaustive checking).
	Compact bool
	// Gossip, when set, replaces the tree by Corrected Gossip dissemination
	// (§3.1; statemachine/correction/gossip.go). Tree then only gives P.
	Gossip *GossipParams
	// ForgetCrashed: a crashed process's node is replaced by its Forget
	// (Via, value and Sent kept; env.Config.ForgetCrashed, corrsm
	// Node.Forget).
	ForgetCrashed bool
	// DropAbsorbed: a message its receiver absorbs (corrsm Node.Absorbs: a
	// TREE or gossip message at a colored process, a correction message
	// from a side already heard from as near or nearer, or whose checked
	// direction is over) is removed when it becomes absorbed instead of
	// being delivered as a no-op (env.Config.DropAbsorbed).
	DropAbsorbed bool
}

// GossipParams are the inputs of Corrected Gossip dissemination.
type GossipParams struct {
	// Rounds is the length of every process's partner sequence: the most
	// gossip messages one process sends.
	Rounds int
	// Time is the gossip time T of the LogP simulation: the gossip phase
	// ends, and synchronized correction starts, at T (§3.1 "a fixed period
	// of time", §3.3). Unused by exhaustive checking, which has no clock.
	Time int64
	// Seed draws the partner sequences (GossipPartners).
	Seed uint64
}

// gossipStream separates the partner draws from the fault-set draws of
// logp.RandomFaults, which use the same seed.
const gossipStream = 0x676f73736970 // "gossip"

// GossipPartners draws the partner sequences of one run: partner i of
// process r is uniform over the P-1 other ranks, independently for every
// (r, i), drawn in the order r = 0…P-1, i = 0…rounds-1 from PCG(seed ⊕
// "gossip", run) — the same arguments give the same plan. Uniform over the
// others, the root included, is what the authors' simulator flogsim does;
// the paper says only "a random subset of other processes" (§3.1).
func GossipPartners(P, rounds int, seed, run uint64) (*corrsm.GossipPlan, error) {
	rng := rand.New(rand.NewPCG(seed^gossipStream, run))
	return corrsm.NewGossipPlan(P, rounds, func(r core.Rank, _ int) core.Rank {
		q := rng.IntN(P - 1)
		if q >= int(r) {
			q++
		}
		return core.Rank(q)
	})
}

// DefaultGossipTime is ⌈2·log2 P⌉, the base gossip time of flogsim (which
// adds a tunable offset); §4.1 tunes T per P for the lowest latency.
func DefaultGossipTime(P int) int64 { return int64(math.Ceil(2 * math.Log2(float64(P)))) }

// ruleNames names the non-default rules for model names: " early=silent",
// " cover-stop", " no-over-root".
func (p Params) ruleNames() string {
	var b strings.Builder
	if p.Early != corrsm.EarlyForwards {
		b.WriteString(" early=" + p.Early.String())
	}
	if p.CoverStop {
		b.WriteString(" cover-stop")
	}
	if p.NoOverRoot {
		b.WriteString(" no-over-root")
	}
	return b.String()
}

// dissemination names the dissemination for model names.
func (p Params) dissemination() string {
	if g := p.Gossip; g != nil {
		if g.Time > 0 {
			return fmt.Sprintf("dissemination=gossip(T=%d rounds=%d seed=%d)", g.Time, g.Rounds, g.Seed)
		}
		return fmt.Sprintf("dissemination=gossip(rounds=%d seed=%d)", g.Rounds, g.Seed)
	}
	return fmt.Sprintf("tree=%v", p.Tree)
}

// correctionFlags binds the flags shared by check and simulate.
type correctionFlags struct {
	tree, corr, start, mut string
	early                  string
	cover, noOverRoot      bool
	k, d, p, L, o          int
	delay                  uint64
	gRounds                int
	gTime                  int64
	maxP                   int
	fs                     *flag.FlagSet
}

// Ranges of the size flags shared by check and simulate.
const (
	// MaxCheckP is the largest --P of ftcheck check correction.
	MaxCheckP = 16
	// MaxSimP is the largest --P of ftcheck simulate correction: the LogP
	// simulator takes about 0.9 KB per process (3.5 GB at 2^22, 1 GB at
	// 2^20).
	MaxSimP = 1 << 22
	// MaxK bounds --k, MaxTime --L, --o, --g and --delay (LogP time
	// units), MaxGossipRounds --gossip-rounds and --gossip-time.
	MaxK            = 1 << 16
	MaxTime         = 1_000_000
	MaxGossipRounds = 1024
)

// bindCorrection binds the model flags with the default P and the largest
// accepted --P, maxP.
func bindCorrection(fs *flag.FlagSet, P, maxP int) *correctionFlags {
	f := &correctionFlags{fs: fs, maxP: maxP}
	fs.StringVar(&f.tree, "tree", "binomial", "dissemination: a tree binomial|binomial-inorder|kary|kary-inorder|lame|optimal, or gossip (Corrected Gossip, §3.1)")
	fs.IntVar(&f.k, "k", 2, fmt.Sprintf("arity of kary trees (2 … %d), order of Lamé trees (1 … %d)", MaxK, MaxK))
	fs.StringVar(&f.corr, "correction", "checked", "correction: opportunistic|optimized|checked|delayed|none")
	fs.IntVar(&f.d, "d", 4, fmt.Sprintf("distance d of (optimized) opportunistic correction, 1 … %d", MaxSimP))
	fs.StringVar(&f.start, "start", "synchronized", "correction start: synchronized|overlapped")
	fs.IntVar(&f.p, "P", P, fmt.Sprintf("number of processes (ranks 0..P-1, root 0), 1 … %d", maxP))
	fs.IntVar(&f.L, "L", 2, fmt.Sprintf("LogP latency L (the optimal tree is built for it), 0 … %d", MaxTime))
	fs.IntVar(&f.o, "o", 1, fmt.Sprintf("LogP overhead o (the optimal tree is built for it), 1 … %d", MaxTime))
	fs.Uint64Var(&f.delay, "delay", 4, fmt.Sprintf("wait of delayed correction, 1 … %d", MaxTime))
	fs.StringVar(&f.early, "early", "forwards", "a process colored by a correction message: forwards (still sends its tree messages when correction overlaps, §3.3) or silent (sends nothing, §3.1 read strictly)")
	fs.BoolVar(&f.cover, "cover-stop", false, "checked correction also stops once the left and right distances sent to add up to P (flogsim's rule; docs/correction-flogsim.md)")
	fs.BoolVar(&f.noOverRoot, "no-over-root", false, "checked and opportunistic correction never send across the root: the ring is cut between P-1 and 0 (flogsim's send_over_root=false)")
	fs.StringVar(&f.mut, "mutant", "", "test-only broken variant (see ftcheck list)")
	fs.IntVar(&f.gRounds, "gossip-rounds", 0, fmt.Sprintf("with --tree gossip: gossip messages per process, the length of its random partner sequence, 0 … %d (0: 1 for check, ⌈T/o⌉ for simulate)", MaxGossipRounds))
	fs.Int64Var(&f.gTime, "gossip-time", 0, fmt.Sprintf("with --tree gossip, simulate only: LogP time T at which gossip ends and synchronized correction starts, 0 … %d (0: ⌈2·log2 P⌉)", MaxGossipRounds))
	return f
}

// ParseTreeKind reads a --tree name.
func ParseTreeKind(s string) (corrsm.TreeKind, error) {
	for _, k := range []corrsm.TreeKind{corrsm.BinomialInterleaved, corrsm.BinomialInOrder,
		corrsm.KaryInterleaved, corrsm.KaryInOrder, corrsm.Lame, corrsm.Optimal} {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("--tree %q: want binomial, binomial-inorder, kary, kary-inorder, lame or optimal", s)
}

// ParseEarlyRule reads an --early name: forwards or silent.
func ParseEarlyRule(s string) (corrsm.EarlyRule, error) {
	for _, e := range []corrsm.EarlyRule{corrsm.EarlyForwards, corrsm.EarlySilent} {
		if e.String() == s {
			return e, nil
		}
	}
	return 0, fmt.Errorf("--early %q: want forwards or silent", s)
}

// ParseCorrectionKind reads a --correction name.
func ParseCorrectionKind(s string) (corrsm.CorrectionKind, error) {
	switch s {
	case "opportunistic":
		return corrsm.Opportunistic, nil
	case "optimized", "optimized-opportunistic":
		return corrsm.OptimizedOpportunistic, nil
	case "checked":
		return corrsm.Checked, nil
	case "delayed":
		return corrsm.Delayed, nil
	case "none":
		return corrsm.NoCorrection, nil
	}
	return 0, fmt.Errorf("--correction %q: want opportunistic, optimized, checked, delayed or none", s)
}

// sizes checks the size flags against their ranges.
func (f *correctionFlags) sizes() error {
	return flagcheck.First(
		flagcheck.Int("P", int64(f.p), 1, int64(f.maxP), map[bool]string{true: "exhaustive checking is for small P: use ftcheck simulate correction beyond"}[f.maxP == MaxCheckP]),
		flagcheck.Int("k", int64(f.k), 1, MaxK, ""),
		flagcheck.Int("d", int64(f.d), 1, MaxSimP, ""),
		flagcheck.Int("L", int64(f.L), 0, MaxTime, ""),
		flagcheck.Int("o", int64(f.o), 1, MaxTime, ""),
		flagcheck.Uint("delay", f.delay, 1, MaxTime, ""),
		flagcheck.Int("gossip-rounds", int64(f.gRounds), 0, MaxGossipRounds, negative(int64(f.gRounds))),
		flagcheck.Int("gossip-time", f.gTime, 0, MaxGossipRounds, negative(f.gTime)),
	)
}

// negative is the reason a negative count is refused, "" for another.
func negative(v int64) string {
	if v < 0 {
		return "must not be negative"
	}
	return ""
}

func (f *correctionFlags) params() (Params, error) {
	if err := f.sizes(); err != nil {
		return Params{}, err
	}
	p := Params{P: f.p, Distance: f.d, Delay: f.delay, Mutant: mutant.Name(f.mut), CoverStop: f.cover, NoOverRoot: f.noOverRoot}
	var err error
	if p.Early, err = ParseEarlyRule(f.early); err != nil {
		return p, err
	}
	if f.tree == "gossip" {
		// The topology only gives P (corrsm.Config.Gossip).
		p.Tree = corrsm.Tree{Kind: corrsm.BinomialInterleaved}
		p.Gossip = &GossipParams{Rounds: f.gRounds, Time: f.gTime}
		if f.gRounds < 0 || f.gTime < 0 {
			return p, fmt.Errorf("--gossip-rounds %d, --gossip-time %d: must not be negative", f.gRounds, f.gTime)
		}
		if f.start != "synchronized" {
			return p, fmt.Errorf("--tree gossip --start %s: Corrected Gossip starts correction synchronized, at the end of the gossip phase (§3.3)", f.start)
		}
		if f.p < 2 {
			return p, fmt.Errorf("--tree gossip --P %d: gossip needs at least 2 processes", f.p)
		}
	} else {
		kind, err := ParseTreeKind(f.tree)
		if err != nil {
			return p, fmt.Errorf("--tree %q: want binomial, binomial-inorder, kary, kary-inorder, lame, optimal or gossip", f.tree)
		}
		p.Tree = corrsm.Tree{Kind: kind, K: f.k, L: f.L, O: f.o}
		if f.gRounds != 0 || f.gTime != 0 {
			return p, fmt.Errorf("--gossip-rounds and --gossip-time need --tree gossip (the tree is %s)", f.tree)
		}
	}
	if p.Correction, err = ParseCorrectionKind(f.corr); err != nil {
		return p, err
	}
	switch f.start {
	case "synchronized":
		p.Start = corrsm.Synchronized
	case "overlapped":
		p.Start = corrsm.Overlapped
	default:
		return p, fmt.Errorf("--start %q: want synchronized or overlapped", f.start)
	}
	if p.Mutant != mutant.None {
		ok := false
		for _, m := range append(slices.Clone(corrsm.Mutants), corrsm.LogPMutants...) {
			ok = ok || m == p.Mutant
		}
		if !ok {
			return p, registry.ErrUnknownMutant("correction", f.mut)
		}
		if p.Mutant == corrsm.MutantKaryHeapOrder {
			p.Tree.Mutant = p.Mutant
		}
	}
	return p, nil
}

// own lists the model flags, for traces.
func (f *correctionFlags) own(extra ...string) map[string]string {
	out := map[string]string{}
	for _, name := range append([]string{"tree", "k", "correction", "d", "start", "P", "L", "o", "delay", "early", "cover-stop", "no-over-root", "mutant", "gossip-rounds", "gossip-time"}, extra...) {
		out[name] = f.fs.Lookup(name).Value.String()
	}
	return out
}

// Config builds the shared node configuration (for gossip, with the
// partner sequences of run 0).
func (p Params) Config() (*corrsm.Config, error) {
	top, err := corrsm.NewTopology(p.Tree, p.P)
	if err != nil {
		return nil, err
	}
	cfg := &corrsm.Config{Topology: top, Correction: p.Correction, Distance: p.Distance,
		Start: p.Start, Delay: p.Delay, Early: p.Early, CoverStop: p.CoverStop, NoOverRoot: p.NoOverRoot,
		Mutant: p.Mutant, Compact: p.Compact}
	if p.Gossip != nil {
		if cfg.Gossip, err = GossipPartners(p.P, p.Gossip.Rounds, p.Gossip.Seed, 0); err != nil {
			return nil, err
		}
	}
	return cfg, cfg.Validate()
}

func defineCorrection(fs *flag.FlagSet) registry.Builder {
	f := bindCorrection(fs, 6, MaxCheckP)
	faults := fs.Int("faults", 1, "crash budget F: up to F non-root processes fail, at any step, 0 … P-1 (the root, rank 0, never fails: §2.1)")
	before := fs.Bool("faults-before-correction", false, "failures only before the synchronized start of correction (the guarantee of checked correction, §3.1/§4.2); needs --start synchronized")
	timing := fs.String("timing", "async", "async: any interleaving, each send slot fires whenever; rounds: lock-step rounds (one correction send per process per round, all of a round's messages delivered before the next round), far fewer interleavings")
	lose := fs.Bool("lose-on-crash", false, "messages in flight from a crashed process may be lost (each loss is a step); by default they are all delivered")
	forget := fs.Bool("forget-crashed", false, "replace a crashed process's state by what the properties read of it (cause of coloring, value, send count): fewer states, the same verdicts (checker/env forget.go)")
	drop := fs.Bool("drop-absorbed", false, "remove a message its receiver absorbs (a no-op delivery: a TREE message at a colored process, a correction message from a side already heard from as near or nearer) when it becomes absorbed: fewer states, the same verdicts (checker/env absorb_drop.go)")
	seed := fs.Uint64("seed", 1, "with --tree gossip: seed of the random partner sequences (one fixed plan is checked)")
	return func() (registry.Runner, error) {
		p, err := f.params()
		if err != nil {
			return nil, err
		}
		if g := p.Gossip; g != nil {
			if g.Time != 0 {
				return nil, fmt.Errorf("--gossip-time %d: ftcheck check has no clock (time is abstract); the gossip phase ends when every colored process has sent its --gossip-rounds messages", g.Time)
			}
			if g.Rounds == 0 {
				g.Rounds = 1
			}
			g.Seed = *seed
		}
		if slices.Contains(corrsm.LogPMutants, p.Mutant) {
			return nil, fmt.Errorf("--mutant %s shows only under LogP timing: use ftcheck simulate correction", p.Mutant)
		}
		p.Faults, p.FaultsBeforeCorrection, p.Compact, p.ForgetCrashed, p.DropAbsorbed = *faults, *before, true, *forget, *drop
		if *lose {
			p.Loss = env.LossOnCrash
		}
		if p.Timing, err = env.ParseTiming(*timing); err != nil {
			return nil, fmt.Errorf("--timing %q: want async or rounds", *timing)
		}
		m, err := NewModel(p)
		if err != nil {
			return nil, err
		}
		return registry.Erase(m, "correction", f.own("faults", "faults-before-correction", "seed", "timing", "lose-on-crash", "forget-crashed", "drop-absorbed")), nil
	}
}

// NewModel builds the asynchronous environment for a Corrected
// Tree broadcast: the root calls Broadcast(42) once; with synchronized
// start the correction-start timer is a wakeup of the environment's
// synchronized clock, which arms it at every live process once the
// dissemination has settled (nothing else enabled); the root survives.
// With gossip dissemination the gossip phase settles when every colored
// process has sent its p.Gossip.Rounds messages (no clock can cut it).
func NewModel(p Params) (*env.Model, error) { return newModelWith(p, nil) }

// newModelWith is NewModel with the may-send relation rel (nil: maySend
// less the quiet messages, quiet.go).
func newModelWith(p Params, rel func(*env.World, core.Rank, core.Rank) bool) (*env.Model, error) {
	if rel == nil {
		rel = (&quietMemo{forget: p.ForgetCrashed, m: map[string]uint64{}}).maySendQuiet
	}
	cfg, err := p.Config()
	if err != nil {
		return nil, err
	}
	if p.Faults < 0 || p.Faults >= p.P {
		return nil, fmt.Errorf("--faults %d: must be in 0..P-1 (the root never fails)", p.Faults)
	}
	syncStart := p.Start == corrsm.Synchronized && p.Correction != corrsm.NoCorrection
	if p.FaultsBeforeCorrection && !syncStart {
		return nil, fmt.Errorf("--faults-before-correction needs --start synchronized and a correction: overlapped correction starts during dissemination")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "correction %s correction=%v start=%v", p.dissemination(), p.Correction, p.Start)
	switch p.Correction {
	case corrsm.Opportunistic, corrsm.OptimizedOpportunistic:
		fmt.Fprintf(&b, " d=%d", p.Distance)
	case corrsm.Delayed:
		fmt.Fprintf(&b, " delay=%d", p.Delay)
	}
	b.WriteString(p.ruleNames())
	if p.Mutant != mutant.None {
		b.WriteString(" mutant=" + string(p.Mutant))
	}
	if p.Timing == env.LockStepRounds {
		b.WriteString(" timing=rounds")
	}
	if p.Loss == env.LossOnCrash {
		b.WriteString(" lose-on-crash")
	}
	sched := make([][]core.Input, p.P)
	sched[0] = []core.Input{corrsm.Broadcast{Value: BcastValue}}
	ec := env.Config{
		Name: b.String(), N: p.P, Crashes: p.Faults,
		NewNode: func(r core.Rank, _ int) core.Machine {
			n, err := corrsm.New(cfg, r)
			if err != nil {
				panic(err) // validated above
			}
			return n
		},
		Schedules: [][][]core.Input{sched}, Survivors: []core.Rank{0}, Detector: env.DetectorNone,
		CrashBeforeWakeup: p.FaultsBeforeCorrection,
		Timing:            p.Timing,
		Loss:              p.Loss,
		Properties:        append(Properties(), ColoredSilent(p.Early)),
		Codec:             codec(cfg),
		MaySend:           rel,
		ForgetCrashed:     p.ForgetCrashed,
		DropAbsorbed:      p.DropAbsorbed,
	}
	if syncStart {
		ec.Wakeups = []uint64{corrsm.TimerStart}
	}
	return env.New(ec)
}
