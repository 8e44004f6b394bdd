package era

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// The ulfm-bench program: WARMUP and the post-failure agreements of the
// paper's Figure 3 (line 27's synchronising agreement is the first of the
// post-failure ones).
const (
	ulfmWarmup = 3
	ulfmPost   = 3
)

// ulfmPhases are the phases reported, in program order.
var ulfmPhases = []erasm.Phase{erasm.PhaseWarmup, erasm.PhaseDetect, erasm.PhaseStabilize, erasm.PhasePost}

// ULFMBenchParams configure the ulfm-bench scenario.
type ULFMBenchParams struct {
	ERA    Params // N, Tree, Rebalance, Network, Loss, GC, Mutant, Fail
	Warmup int
	Post   int
}

// NewULFMBenchModel builds the Figure 3 benchmark: every process runs an
// erasm.App (Op ULFM) started by one AppStart call; the Fail ranks are faulty
// (they stop after the warm-up) and the model kills each as soon as it
// finished its warm-up.
func NewULFMBenchModel(bp ULFMBenchParams) (*ULFMBench, error) {
	p := bp.ERA
	p.Op = erasm.ULFM
	cfg := erasm.Config{N: p.N, Op: erasm.ULFM, GC: p.GC, Rebalance: p.Rebalance, Mutant: p.Mutant}.WithTree(p.Tree())
	progs := [2]*erasm.AppConfig{
		{Warmup: bp.Warmup, Post: bp.Post, Flag: 1},
		{Warmup: bp.Warmup, Post: bp.Post, Flag: 1, Faulty: true},
	}
	if _, err := erasm.NewApp(0, cfg, progs[0]); err != nil {
		return nil, err
	}
	var failSet core.RankSet
	for _, r := range p.Fail {
		failSet.Add(r)
	}
	sched := make([][]core.Input, p.N)
	for q := range sched {
		sched[q] = []core.Input{erasm.AppStart{}}
	}
	name := fmt.Sprintf("era-ulfm-bench topology=%v network=%v warmup=%d post=%d", p.Tree(), p.Network, bp.Warmup, bp.Post)
	if p.Mutant != "" {
		name += " mutant=" + string(p.Mutant)
	}
	m, err := env.New(env.Config{
		Name: name, N: p.N,
		// The Fail ranks crash through the budget, when Sample says so:
		// CrashProb 0 keeps env.Sample from crashing anyone.
		Crashes: len(p.Fail), Network: p.Network, Loss: p.Loss,
		NewNode: func(r core.Rank, n int) core.Machine {
			prog := progs[0]
			if failSet.Has(r) {
				prog = progs[1]
			}
			app, err := erasm.NewApp(r, cfg, prog)
			if err != nil {
				panic(err) // validated above with the same cfg
			}
			return app
		},
		Schedules:  [][][]core.Input{sched},
		Properties: ulfmProps(),
	})
	if err != nil {
		return nil, err
	}
	return &ULFMBench{Model: m, p: bp, fail: slices.Clone(p.Fail)}, nil
}

// ULFMBench is the benchmark's model: env.Model with the kill of the faulty
// ranks (lines 10–13 of Figure 3) in Sample and Quiescent, and the
// measurements of ulfm-bench (checker.Observer).
type ULFMBench struct {
	*env.Model
	p    ULFMBenchParams
	fail []core.Rank

	mu      sync.Mutex
	figs    map[int]*ulfmWalk        // walks in progress
	pending map[int]*ulfmWalkSummary // finished ahead of a walk in progress
	next    int                      // walks 0…next−1 are in tot
	stop    bool                     // a walk in tot violated a property
	tot     *ulfmTotals
}

var (
	_ checker.Sampler[*env.World]  = (*ULFMBench)(nil)
	_ checker.Observer[*env.World] = (*ULFMBench)(nil)
	_ checker.Model[*env.World]    = (*ULFMBench)(nil)
)

// Sample kills a faulty rank as soon as its warm-up is over (raise(SIGKILL)
// right after its last warm-up agreement returned), and otherwise samples
// as env.Model does (without crashes). If nothing else is enabled, a
// faulty rank still alive is killed anyway (a run cannot end with one).
func (m *ULFMBench) Sample(s *env.World, r *rand.Rand, buf []checker.Action) (checker.Action, bool) {
	if s.NumCrashed() < len(m.fail) {
		for _, f := range m.fail {
			if !s.Crashed(f) && appOf(s, f).Phase() == erasm.PhaseKilled {
				return checker.Action{Kind: env.Crash, P: int32(f)}, true
			}
		}
	}
	if a, ok := m.Model.Sample(s, r, buf); ok {
		return a, true
	}
	for _, f := range m.fail {
		if !s.Crashed(f) {
			return checker.Action{Kind: env.Crash, P: int32(f)}, true
		}
	}
	return checker.Action{}, false
}

// Actions are env.Model's, with no crash but the kill of a faulty rank
// whose warm-up is over: exhaustive search explores every interleaving of
// the benchmark with its failures at the points of Figure 3.
func (m *ULFMBench) Actions(s *env.World, buf []checker.Action) []checker.Action {
	start := len(buf)
	buf = m.Model.Actions(s, buf)
	out := buf[:start]
	for _, a := range buf[start:] {
		if a.Kind == env.Crash && appOf(s, core.Rank(a.P)).Phase() != erasm.PhaseKilled {
			continue
		}
		out = append(out, a)
	}
	return out
}

// Quiescent: as env.Model, and every faulty rank has been killed.
func (m *ULFMBench) Quiescent(s *env.World) bool {
	if !m.Model.Quiescent(s) {
		return false
	}
	for _, f := range m.fail {
		if !s.Crashed(f) {
			return false
		}
	}
	return true
}

// ulfmWalk is what one walk in progress measured, per agreement a.
type ulfmWalk struct {
	ags  []ulfmAgreement
	pair map[[2]int32]ulfmSent // latest message sent from q to p
}

type ulfmAgreement struct {
	sends  int
	byKind [3]int  // UP, DOWN, RESULTREQUEST
	clock  []int32 // Lamport round of each process within the agreement
	rounds int     // largest round at which a process decided
}

type ulfmSent struct {
	a     uint64
	round int32
}

// ulfmWalkSummary is what a finished walk measured.
type ulfmWalkSummary struct {
	phase      []erasm.Phase // phase of agreement a, as the live processes ran it
	sends      []int
	byKind     [][3]int
	rounds     []int
	detectErr  bool // the detecting agreement returned PROC_FAILED at every live process
	stabilized bool // the stabilization loop ended with a success at every live process
	postOK     bool // every post-failure agreement returned without error everywhere
	completed  bool // every live process ran the whole program
	violated   bool
}

func (m *ULFMBench) walk(i int) *ulfmWalk {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.figs[i]
	if w == nil {
		w = &ulfmWalk{pair: map[[2]int32]ulfmSent{}}
		m.figs[i] = w
	}
	return w
}

func (w *ulfmWalk) ag(a uint64, n int) *ulfmAgreement {
	for uint64(len(w.ags)) <= a {
		w.ags = append(w.ags, ulfmAgreement{clock: make([]int32, n)})
	}
	return &w.ags[a]
}

// msgAgreement is the agreement and kind index of an ERA message.
func msgAgreement(m core.Message) (uint64, int, bool) {
	switch m := m.(type) {
	case erasm.Up:
		return m.A, 0, true
	case erasm.Down:
		return m.A, 1, true
	case erasm.ResultRequest:
		return m.A, 2, true
	}
	return 0, 0, false
}

// ObserveStep counts messages per agreement and advances the Lamport
// rounds of each agreement as eraObserver does: a message of agreement a
// sent at round r is delivered at round r+1 of a; an agreement's rounds are
// the largest round at which a process decides it.
func (m *ULFMBench) ObserveStep(i int, _ *env.World, a checker.Action, next *env.World) {
	w := m.walk(i)
	n := m.Model.N()
	p := next.LastActor()
	if a.Kind == env.Deliver {
		if s, ok := w.pair[[2]int32{a.Q, a.P}]; ok {
			g := w.ag(s.a, n)
			g.clock[a.P] = max(g.clock[a.P], s.round)
		}
	}
	for _, e := range next.LastEffects() {
		switch e.Kind {
		case core.EffSend:
			ag, k, ok := msgAgreement(e.Msg)
			if !ok {
				continue
			}
			g := w.ag(ag, n)
			g.sends++
			g.byKind[k]++
			w.pair[[2]int32{int32(p), int32(e.To)}] = ulfmSent{a: ag, round: g.clock[p] + 1}
		case core.EffDecide:
			g := w.ag(e.Instance, n)
			g.rounds = max(g.rounds, int(g.clock[p]))
		}
	}
}

// ObserveEnd summarises the walk from its measurements and final world.
func (m *ULFMBench) ObserveEnd(i int, final *env.World, st checker.WalkStat) {
	w := m.walk(i)
	sum := ulfmWalkSummary{detectErr: true, stabilized: true, postOK: true, completed: true, violated: st.Violated}
	for _, g := range w.ags {
		sum.sends = append(sum.sends, g.sends)
		sum.byKind = append(sum.byKind, g.byKind)
		sum.rounds = append(sum.rounds, g.rounds)
	}
	withFailures := len(m.fail) > 0
	for p := core.Rank(0); int(p) < final.N(); p++ {
		if final.Crashed(p) {
			continue
		}
		app := appOf(final, p)
		calls := app.Calls()
		if sum.phase == nil {
			for _, c := range calls {
				sum.phase = append(sum.phase, c.Phase)
			}
		}
		sum.completed = sum.completed && app.Phase() == erasm.PhaseDone
		var last *erasm.AppCall
		sawDetect := false
		for j := range calls {
			c := &calls[j]
			switch c.Phase {
			case erasm.PhaseDetect:
				sawDetect = true
				if withFailures && !c.Err() {
					sum.detectErr = false
				}
				last = c
			case erasm.PhaseStabilize:
				last = c
			case erasm.PhasePost:
				if !c.Returned || c.Err() {
					sum.postOK = false
				}
			}
		}
		if !sawDetect {
			sum.detectErr = false
		}
		if last == nil || !last.Returned || last.Err() {
			sum.stabilized = false
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.figs, i)
	m.pending[i] = &sum
	for !m.stop {
		s := m.pending[m.next]
		if s == nil {
			break
		}
		delete(m.pending, m.next)
		m.next++
		m.tot.add(s)
		m.stop = s.violated
	}
}

// reset forgets the walks measured.
func (m *ULFMBench) reset() {
	m.figs, m.pending, m.next, m.stop, m.tot = map[int]*ulfmWalk{}, map[int]*ulfmWalkSummary{}, 0, false, newULFMTotals()
}

// ulfmTotals are the figures of the walks added so far, in walk order: a
// walk's summary is added as soon as every walk before it is, so that
// memory does not grow with the number of walks.
type ulfmTotals struct {
	per                              map[erasm.Phase]*ulfmPhaseFigures
	agCount, roundSum                map[erasm.Phase]float64
	detect, stab, post, completed, n int
}

func newULFMTotals() *ulfmTotals {
	t := &ulfmTotals{per: map[erasm.Phase]*ulfmPhaseFigures{}, agCount: map[erasm.Phase]float64{}, roundSum: map[erasm.Phase]float64{}}
	for _, ph := range ulfmPhases {
		t.per[ph] = &ulfmPhaseFigures{MinAgreements: -1, MessagesByKind: map[string]float64{"UP": 0, "DOWN": 0, "RESULTREQUEST": 0}}
	}
	return t
}

var ulfmKinds = []string{"UP", "DOWN", "RESULTREQUEST"}

// add adds one finished walk.
func (t *ulfmTotals) add(s *ulfmWalkSummary) {
	t.n++
	if s.detectErr {
		t.detect++
	}
	if s.stabilized {
		t.stab++
	}
	if s.postOK {
		t.post++
	}
	if s.completed {
		t.completed++
	}
	count := map[erasm.Phase]int{}
	for a, ph := range s.phase {
		f := t.per[ph]
		if f == nil || a >= len(s.sends) {
			continue
		}
		count[ph]++
		f.Messages += float64(s.sends[a])
		for k, name := range ulfmKinds {
			f.MessagesByKind[name] += float64(s.byKind[a][k])
		}
		t.roundSum[ph] += float64(s.rounds[a])
		f.MaxRounds = max(f.MaxRounds, s.rounds[a])
	}
	for _, ph := range ulfmPhases {
		f := t.per[ph]
		c := count[ph]
		t.agCount[ph] += float64(c)
		if f.MinAgreements < 0 || c < f.MinAgreements {
			f.MinAgreements = c
		}
		f.MaxAgreements = max(f.MaxAgreements, c)
	}
}

// ulfmPhaseFigures are one phase's figures over the walks.
type ulfmPhaseFigures struct {
	Agreements     float64            `json:"agreements"`
	MinAgreements  int                `json:"min_agreements"`
	MaxAgreements  int                `json:"max_agreements"`
	Messages       float64            `json:"messages"`
	MessagesPerAg  float64            `json:"messages_per_agreement"`
	RoundsPerAg    float64            `json:"rounds_per_agreement"`
	MaxRounds      int                `json:"max_rounds"`
	MessagesByKind map[string]float64 `json:"messages_by_kind"`
}

func (m *ULFMBench) summary(res *checker.WalkResult) (map[string]any, string) {
	nw := res.Walks
	m.mu.Lock()
	t := m.tot
	m.mu.Unlock()
	per, agCount, roundSum := t.per, t.agCount, t.roundSum
	detect, stab, post, completed, quiescent := t.detect, t.stab, t.post, t.completed, 0
	for _, st := range res.PerWalk {
		if st.Quiescent {
			quiescent++
		}
	}
	phases := map[string]any{}
	w := float64(max(nw, 1))
	for _, ph := range ulfmPhases {
		f := per[ph]
		if f.MinAgreements < 0 {
			f.MinAgreements = 0
		}
		if agCount[ph] > 0 {
			f.MessagesPerAg = f.Messages / agCount[ph]
			f.RoundsPerAg = roundSum[ph] / agCount[ph]
			for k := range f.MessagesByKind {
				f.MessagesByKind[k] /= agCount[ph]
			}
		}
		f.Agreements = agCount[ph] / w
		f.Messages /= w
		phases[ph.String()] = f
	}
	p := m.p.ERA
	failStr := ranksString(m.fail)
	secsPerWalk := res.Seconds / w
	figs := map[string]any{
		"scenario": "ulfm-bench", "n": p.N, "walks": nw, "steps": res.Steps,
		"steps_per_sec": res.StepsPerSec, "seconds_per_walk": secsPerWalk,
		"topology": p.Tree().String(), "network": p.Network.String(),
		"fail": failStr, "failed_ranks": len(m.fail),
		"warmup": m.p.Warmup, "post": m.p.Post,
		"phases":                      phases,
		"properties_hold":             res.Violation == nil,
		"quiescent_walks":             quiescent,
		"completed_walks":             completed,
		"detect_err_everywhere_walks": detect,
		"stabilized_walks":            stab,
		"post_ok_walks":               post,
		"failure_free_messages":       2 * (p.N - 1),
	}
	var b strings.Builder
	fmt.Fprintf(&b, "era ulfm-bench N=%d topology=%v fail=%s warmup=%d post=%d: %d walks, %d steps (%.0f steps/s, %.2fs per walk)\n",
		p.N, p.Tree(), failStr, m.p.Warmup, m.p.Post, nw, res.Steps, res.StepsPerSec, secsPerWalk)
	fmt.Fprintf(&b, "  %-10s %11s %10s %13s %11s %9s  %s\n", "phase", "agreements", "messages", "msgs/agreem.", "rounds/ag.", "max rnds", "by kind per agreement (UP/DOWN/RESULTREQUEST)")
	for _, ph := range ulfmPhases {
		f := per[ph]
		ags := fmt.Sprintf("%.2f", f.Agreements)
		if f.MinAgreements != f.MaxAgreements {
			ags = fmt.Sprintf("%.2f [%d..%d]", f.Agreements, f.MinAgreements, f.MaxAgreements)
		}
		fmt.Fprintf(&b, "  %-10s %11s %10.1f %13.1f %11.2f %9d  %.1f/%.1f/%.1f\n", ph, ags, f.Messages, f.MessagesPerAg, f.RoundsPerAg, f.MaxRounds,
			f.MessagesByKind["UP"], f.MessagesByKind["DOWN"], f.MessagesByKind["RESULTREQUEST"])
	}
	fmt.Fprintf(&b, "  failure-free agreement: 2(N-1) = %d messages\n", 2*(p.N-1))
	if len(m.fail) > 0 {
		fmt.Fprintf(&b, "  detecting agreement returned PROC_FAILED at every live process: %d/%d walks\n", detect, nw)
	}
	fmt.Fprintf(&b, "  acknowledge-and-agree loop ended with success: %d/%d; post-failure agreements without error: %d/%d\n", stab, nw, post, nw)
	fmt.Fprintf(&b, "  walks completing the program: %d/%d (quiescent %d/%d); properties hold: %v\n", completed, nw, quiescent, nw, res.Violation == nil)
	return figs, b.String()
}

// ranksString formats ranks as "0,4,16-31" ("none" if empty).
func ranksString(rs []core.Rank) string {
	if len(rs) == 0 {
		return "none"
	}
	s := slices.Sorted(slices.Values(rs))
	var parts []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", int32(s[i]), int32(s[j])))
		} else {
			parts = append(parts, fmt.Sprint(int32(s[i])))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// RunULFMBench runs walks of the benchmark and returns the report (a
// violation's trace in rep.Trace).
func RunULFMBench(bp ULFMBenchParams, walks int, seed uint64, maxSteps int) (*registry.SimReport, error) {
	return runULFMBench(context.Background(), nil, bp, walks, seed, maxSteps)
}

// runULFMBench is RunULFMBench stopped by ctx (the report then covers the
// walks done, Interrupted set), with progress lines when progress is not
// nil.
func runULFMBench(ctx context.Context, progress func(string), bp ULFMBenchParams, walks int, seed uint64, maxSteps int) (*registry.SimReport, error) {
	m, err := NewULFMBenchModel(bp)
	if err != nil {
		return nil, err
	}
	m.reset()
	if maxSteps <= 0 {
		// Per agreement about 2N deliveries and N calls; N detections per
		// failure; generous.
		maxSteps = 20 * bp.ERA.N * (bp.Warmup + bp.Post + 4 + len(bp.ERA.Fail))
	}
	opt := checker.WalkOptions{Walks: walks, MaxSteps: maxSteps, Seed: seed, Context: ctx}
	if progress != nil {
		opt = registry.SimWalkOptions(ctx, progress, opt)
	}
	res := checker.Walk[*env.World](m, opt)
	if res.Err != nil {
		return nil, res.Err
	}
	rep := &registry.SimReport{Model: "era", Mode: "ulfm-bench", Seed: seed, Seconds: res.Seconds, Violations: []registry.ViolationRef{}, Interrupted: res.Canceled}
	if res.Violation != nil {
		rep.Trace = res.Violation
		rep.Violations = append(rep.Violations, registry.ViolationRef{Property: res.Violation.Violation.Property, Steps: len(res.Violation.Steps)})
	}
	rep.Figures, rep.Text = m.summary(res)
	return rep, nil
}

// simulateULFMBench is `ftcheck simulate era --scenario ulfm-bench`: the
// paper's Figure 3 benchmark on the MPIX_Comm_agree layer (erasm.App over
// ERA with the ULFM operation), one random walk per run, measured per
// phase. --walks defaults to 10 here (a walk at N=6000 takes seconds).
func simulateULFMBench(ctx context.Context, f *eraFlags, scenario string, walks int, seed uint64, fail string, progress func(string)) (*registry.SimReport, error) {
	if scenario != "ulfm-bench" {
		return nil, fmt.Errorf("--scenario %q: unknown (want ulfm-bench)", scenario)
	}
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	for _, name := range []string{"crashes", "agreements", "values", "blocking", "crash-prob"} {
		if fl := f.fs.Lookup(name); fl != nil && set[name] && fl.Value.String() != fl.DefValue {
			return nil, fmt.Errorf("--scenario ulfm-bench: --%s does not apply (the program and its failures are fixed; use --fail)", name)
		}
	}
	if set["op"] && f.op != "ulfm" {
		return nil, fmt.Errorf("--scenario ulfm-bench runs MPIX_Comm_agree: --op must be ulfm")
	}
	if !set["walks"] {
		walks = 10
	}
	// The program runs MPIX_Comm_agree, each call after the previous one
	// returned: what --rebalance needs.
	f.op, f.blocking = "ulfm", true
	p, err := f.params()
	if err != nil {
		return nil, err
	}
	if p.Fail, err = parseRanks(fail, p.N); err != nil {
		return nil, err
	}
	if len(p.Fail) >= p.N {
		return nil, fmt.Errorf("--fail would crash every process; the paper assumes one survives")
	}
	if walks < 1 {
		return nil, fmt.Errorf("--walks %d: need at least one walk", walks)
	}
	maxSteps := 0
	if fl := f.fs.Lookup("max-steps"); fl != nil && set["max-steps"] {
		fmt.Sscan(fl.Value.String(), &maxSteps)
	}
	progress(fmt.Sprintf("ulfm-bench: N=%d fail=%s, %d walks", p.N, ranksString(p.Fail), walks))
	rep, err := runULFMBench(ctx, progress, ULFMBenchParams{ERA: p, Warmup: ulfmWarmup, Post: ulfmPost}, walks, seed, maxSteps)
	if err != nil {
		return nil, err
	}
	if rep.Trace != nil {
		rep.Trace.Params = f.own()
		rep.Trace.Params[registry.ModelParam] = "era"
		rep.Trace.Params["scenario"] = scenario
		rep.Trace.Params["fail"] = fail
	}
	return rep, nil
}
