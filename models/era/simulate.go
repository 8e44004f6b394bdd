package era

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// simulateERA is `ftcheck simulate era`: seeded random walks at sizes no
// exhaustive search reaches, in the spirit of the paper's Table 2d
// scenarios (failure of the root, of a child of the root, of an inner node,
// of a whole group: --fail 0, 4, 16, 16-31).
func simulateERA(fs *flag.FlagSet) registry.SimBuilder {
	f := bindERA(fs, 64)
	fs.Lookup("crashes").DefValue = "0"
	_ = fs.Set("crashes", "0")
	walks := fs.Int("walks", 100, fmt.Sprintf("number of random walks, 1 … %d", MaxWalks))
	seed := fs.Uint64("seed", 1, "seed: the same seed and flags give the same walks, byte for byte")
	crashProb := fs.Float64("crash-prob", 0, "probability that a step is a crash while crashes are possible (0: 1/N)")
	maxSteps := fs.Int("max-steps", 0, fmt.Sprintf("steps per walk, 0 … %d (0: 200·N·agreements)", MaxSteps))
	scenario := fs.String("scenario", "", "ulfm-bench: the paper's Figure 3 benchmark on the MPIX_Comm_agree layer")
	return func(ctx context.Context, progress func(string)) (*registry.SimReport, error) {
		if err := flagcheck.First(f.sizes(), flagcheck.Int("walks", int64(*walks), 1, MaxWalks, ""),
			flagcheck.Int("max-steps", int64(*maxSteps), 0, MaxSteps, "0: 200·N·agreements")); err != nil {
			return nil, err
		}
		if *scenario != "" {
			return simulateULFMBench(ctx, f, *scenario, *walks, *seed, f.fail, progress)
		}
		// The walks' input vector is drawn from the seed; the flag goes
		// into traces so that replay rebuilds the same model.
		f.inputsSeed = int64(*seed & (1<<63 - 1))
		p, err := f.params()
		if err != nil {
			return nil, err
		}
		p.CrashProb = *crashProb
		if *walks < 1 {
			return nil, fmt.Errorf("--walks %d: need at least one walk", *walks)
		}
		ms := *maxSteps
		if ms <= 0 {
			ms = 200 * p.N * p.Agreements
		}
		m, err := NewModel(p, []([][]core.Input){randomInputs(p, uint64(f.inputsSeed))})
		if err != nil {
			return nil, err
		}
		obs := newEraObserver(m, p)
		opt := registry.SimWalkOptions(ctx, progress, checker.WalkOptions{Walks: *walks, MaxSteps: ms, Seed: *seed})
		// ftcheck simulate --shard and merge (simshard.go): a shard runs
		// and records the walks it owns, the merge replays the records.
		log := registry.RunLogOf(ctx)
		c := log.Begin()
		var res *checker.WalkResult
		switch {
		case log.Replaying():
			if res, err = obs.replay(m, log, c, opt); err != nil {
				return nil, err
			}
		case log != nil:
			obs.recordTo(log, c)
			opt.Owns = log.Owns
			fallthrough
		default:
			res = checker.Walk[*env.World](obs, opt)
		}
		if res.Err != nil {
			return nil, res.Err
		}
		if obs.recordErr != nil {
			return nil, obs.recordErr
		}
		rep := &registry.SimReport{Model: "era", Mode: "random-walks", Seed: *seed, Seconds: res.Seconds, Violations: []registry.ViolationRef{}, Interrupted: res.Canceled}
		if res.Violation != nil {
			res.Violation.Params = f.own()
			res.Violation.Params[registry.ModelParam] = "era"
			rep.Trace = res.Violation
			rep.Violations = append(rep.Violations, registry.ViolationRef{Property: res.Violation.Violation.Property, Steps: len(res.Violation.Steps)})
		}
		rep.Figures, rep.Text = obs.summary(p, res)
		return rep, nil
	}
}

// Ranges of simulate's walk flags: a walk keeps its actions (16 bytes a
// step) and one figure record.
const (
	MaxWalks = 1_000_000
	MaxSteps = 100_000_000
)

// randomInputs draws one contribution per process and agreement from seed.
func randomInputs(p Params, seed uint64) [][]core.Input {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	s := make([][]core.Input, p.N)
	for q := range s {
		for a := 0; a < p.Agreements; a++ {
			// Mostly 1 so that the AND is not trivially 0.
			v := uint64(1)
			if p.Values > 1 && r.IntN(4*p.N) == 0 {
				v = uint64(r.IntN(p.Values))
			}
			s[q] = append(s[q], inputFor(p.Op, uint64(a), v))
		}
	}
	return s
}

// walkFigures is what one walk measured.
type walkFigures struct {
	sends     int
	byKind    map[string]int
	clock     []int            // Lamport round per process
	pairRound map[[2]int32]int // latest round sent from q to p
	rounds    int              // largest round at which a process decided
	decided   int              // decisions
	mended    int              // depth of the tree mended around the final world's dead
	violated  bool
	msgs      procMsgs   // messages sent and received per process (permsg.go)
	per       PerProcess // msgs at the end of the walk
}

// eraObserver measures walks (checker.Observer). It keeps the walks in
// progress and those finished ahead of a walk still running; the others
// are added to the totals as soon as every walk before them is, so its
// memory does not grow with the number of walks. The totals cover walks
// 0…k−1 in order, up to the first that violated a property: those that
// checker.Walk reports.
type eraObserver struct {
	*env.Model
	n    int
	ag   int // agreements
	tree erasm.Tree
	mu   sync.Mutex
	live map[int]*walkFigures // in progress, or finished and not yet added
	done map[int]bool         // finished among live
	next int                  // walks 0…next−1 are added
	stop bool                 // an added walk violated a property
	free []*walkFigures

	// A shard of a sharded campaign records each walk instead (simshard.go).
	log       *registry.RunLog
	campaign  int
	recordErr error

	// Totals over the walks added.
	sends, rounds, maxSends, maxRounds, mended int
	kinds                                      map[string]int
	maxPerProc, meanPerProc                    float64
}

func newEraObserver(m *env.Model, p Params) *eraObserver {
	return &eraObserver{Model: m, n: p.N, ag: p.Agreements, tree: p.Tree(), live: map[int]*walkFigures{}, done: map[int]bool{}, kinds: map[string]int{}}
}

func (o *eraObserver) fig(i int) *walkFigures {
	o.mu.Lock()
	defer o.mu.Unlock()
	f := o.live[i]
	if f == nil {
		if k := len(o.free); k > 0 {
			f, o.free = o.free[k-1], o.free[:k-1]
		} else {
			f = &walkFigures{clock: make([]int, o.n), pairRound: map[[2]int32]int{}, byKind: map[string]int{}, msgs: newProcMsgs(o.n)}
		}
		o.live[i] = f
	}
	return f
}

// ObserveStep counts messages and advances Lamport rounds: a message sent at
// round r is delivered at round r+1; rounds to decision is the largest round
// at which a process decides.
func (o *eraObserver) ObserveStep(i int, _ *env.World, a checker.Action, next *env.World) {
	f := o.fig(i)
	f.msgs.observe(a, next)
	p := next.LastActor()
	if a.Kind == env.Deliver {
		if r := f.pairRound[[2]int32{a.Q, a.P}]; r > f.clock[a.P] {
			f.clock[a.P] = r
		}
	}
	for _, e := range next.LastEffects() {
		switch e.Kind {
		case core.EffSend:
			f.sends++
			f.byKind[e.Msg.Kind()]++
			f.pairRound[[2]int32{int32(p), int32(e.To)}] = f.clock[p] + 1
		case core.EffDecide:
			f.decided++
			f.rounds = max(f.rounds, f.clock[p])
		}
	}
}

// ObserveEnd measures the final world's mended tree, then adds the walk,
// and those after it that finished, to the totals once the walks before it
// are.
// A nil final is a walk replayed from its record (simshard.go), whose
// figures are already set.
func (o *eraObserver) ObserveEnd(i int, final *env.World, st checker.WalkStat) {
	f := o.fig(i)
	if final != nil {
		f.mended = treeDepth(final.CrashedSet(), o.n, o.tree)
		f.per = f.msgs.summary(final.CrashedSet(), o.ag)
		f.violated = st.Violated
	}
	if o.log != nil {
		o.recordEnd(i, f, st)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.done[i] = true
	for !o.stop && o.done[o.next] {
		f := o.live[o.next]
		delete(o.live, o.next)
		delete(o.done, o.next)
		o.next++
		o.add(f)
	}
}

// add adds a finished walk to the totals and recycles its record.
func (o *eraObserver) add(f *walkFigures) {
	o.sends += f.sends
	o.maxSends = max(o.maxSends, f.sends)
	o.rounds += f.rounds
	o.maxRounds = max(o.maxRounds, f.rounds)
	for k, v := range f.byKind {
		o.kinds[k] += v
	}
	o.mended = max(o.mended, f.mended)
	o.maxPerProc = max(o.maxPerProc, f.per.Max)
	o.meanPerProc += f.per.Mean
	o.stop = f.violated
	o.recycle(f)
}

// recycle clears a walk's figures for reuse (o.mu held).
func (o *eraObserver) recycle(f *walkFigures) {
	clear(f.clock)
	clear(f.pairRound)
	clear(f.byKind)
	clear(f.msgs.sent)
	clear(f.msgs.recv)
	*f = walkFigures{clock: f.clock, pairRound: f.pairRound, byKind: f.byKind, msgs: f.msgs}
	o.free = append(o.free, f)
}

// treeDepth is the depth of the tree rooted at the smallest live rank, as
// seen with dead marked dead.
func treeDepth(dead core.RankSet, n int, t erasm.Tree) int {
	return max(t.Depth(dead, n), 0)
}

func (o *eraObserver) summary(p Params, res *checker.WalkResult) (map[string]any, string) {
	n := res.Walks
	o.mu.Lock()
	sends, rounds, maxRounds, maxSends, kinds, mended := o.sends, o.rounds, o.maxRounds, o.maxSends, o.kinds, o.mended
	maxPer, meanPer := o.maxPerProc, o.meanPerProc/float64(max(n, 1))
	o.mu.Unlock()
	quiescent := 0
	for _, st := range res.PerWalk {
		if st.Quiescent {
			quiescent++
		}
	}
	ag := float64(p.Agreements)
	per := func(x int) float64 { return float64(x) / float64(max(n, 1)) / ag }
	figs := map[string]any{
		"n": p.N, "walks": n, "quiescent_walks": quiescent, "steps": res.Steps,
		"steps_per_sec":            res.StepsPerSec,
		"messages_per_agreement":   per(sends),
		"max_messages_per_walk":    maxSends,
		"messages_by_kind":         kinds,
		"rounds_to_decision":       float64(rounds) / float64(max(n, 1)),
		"max_rounds_to_decision":   maxRounds,
		"tree_depth":               treeDepth(core.RankSet{}, p.N, p.Tree()),
		"max_mended_tree_depth":    mended,
		"failed_ranks":             len(p.Fail),
		"failure_free_messages":    2 * (p.N - 1),
		"properties_hold":          res.Violation == nil,
		"topology":                 p.Tree().String(),
		"agreements":               p.Agreements,
		"crash_budget":             p.Crashes,
		"walks_ending_quiescent_%": 100 * float64(quiescent) / float64(max(n, 1)),
		// Sent plus received, per process and agreement (permsg.go): the
		// largest over every process and walk, the mean over the processes
		// alive at the end, averaged over the walks.
		"max_messages_per_process":  maxPer,
		"mean_messages_per_process": meanPer,
	}
	var b strings.Builder
	fmt.Fprintf(&b, "era N=%d topology=%v agreements=%d fail=%s crashes≤%d: %d walks, %d steps (%.0f steps/s)\n",
		p.N, p.Tree(), p.Agreements, ranksString(p.Fail), p.Crashes, n, res.Steps, res.StepsPerSec)
	fmt.Fprintf(&b, "  messages per agreement: %.1f (failure-free 2(N-1) = %d); by kind: %s\n", per(sends), 2*(p.N-1), kindCounts(kinds))
	fmt.Fprintf(&b, "  messages per process (sent + received, per agreement): %.4g max, %.2f mean\n", maxPer, meanPer)
	fmt.Fprintf(&b, "  rounds to decision: %.1f mean, %d max; tree depth %d, mended %d\n",
		float64(rounds)/float64(max(n, 1)), maxRounds, figs["tree_depth"], mended)
	fmt.Fprintf(&b, "  walks ending quiescent: %d/%d; properties hold: %v\n", quiescent, n, res.Violation == nil)
	return figs, b.String()
}

// kindCounts is "DOWN 6300, UP 6300": the messages sent of each kind, by
// name; "none" when nothing was sent.
func kindCounts(kinds map[string]int) string {
	if len(kinds) == 0 {
		return "none"
	}
	names := slices.Sorted(maps.Keys(kinds))
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, kinds[k])
	}
	return strings.Join(parts, ", ")
}
