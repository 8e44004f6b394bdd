package msglog

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// Crash is simulate's --crash RANK@K: rank crashes right after the step
// of its K-th delivered message (and restarts).
type Crash struct {
	Rank core.Rank
	K    int
}

// ParseCrash reads "RANK@K".
func ParseCrash(s string, procs int) (Crash, error) {
	a, b, ok := strings.Cut(s, "@")
	r, err1 := strconv.Atoi(a)
	k, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || r < 0 || r >= procs || k < 1 {
		return Crash{}, fmt.Errorf("--crash %q: want RANK@K, RANK in 0 … %d, K ≥ 1", s, procs-1)
	}
	return Crash{Rank: core.Rank(r), K: k}, nil
}

// Run is one simulated execution.
type Run struct {
	Steps      int
	Crashed    bool
	RolledBack []int
	// Replayed: per restarted rank, the sources of the receives its new
	// incarnation re-executed (operations its crashed incarnation had
	// executed), in order.
	Replayed map[int][]int
	// Resent: per peer, the messages it re-sent on RESEND_FROM.
	Resent map[int]int
	// Suppressed: sends a restarted process regenerated without
	// transmitting them.
	Suppressed int
	// Probes: per restarted rank, the probes its new incarnation
	// re-executed, as "p1 reps=2".
	Probes map[int][]string
	// Logs: each process's sender-based log at the end, as "p1#2" (the
	// destination and sequence number of each copy kept).
	Logs [][]string
	// Outputs: each process's last output.
	Outputs   []uint64
	Violation string
	// Final is the world at the end (histories, logs, counters).
	Final *env.World
}

// Simulate runs p's program once: at every step the enabled action of the
// highest rank (the first in the environment's order among them), or a
// seeded random one when seed > 0; crash c (when c.K > 0) right after
// the rank's K-th delivery, then its restart once every survivor is told.
func Simulate(p Params, c Crash, seed uint64) (Run, error) {
	if c.K > 0 {
		p.Crashes, p.Recoveries = 1, 1
	} else {
		p.Crashes, p.Recoveries = 0, 0
	}
	m, err := NewModel(p)
	if err != nil {
		return Run{}, err
	}
	w := m.Init()[0]
	var rng *rand.Rand
	if seed > 0 {
		rng = rand.New(rand.NewPCG(seed, 0))
	}
	run := Run{Replayed: map[int][]int{}, Resent: map[int]int{}, Probes: map[int][]string{}}
	histAtCrash := -1
	transmitted := 0
	var buf []checker.Action
	for run.Steps = 0; run.Steps < 1_000_000; run.Steps++ {
		if c.K > 0 && !run.Crashed && recvs(w, c.Rank) >= c.K {
			if w, err = m.Apply(w, checker.Action{Kind: env.Crash, P: int32(c.Rank)}); err != nil {
				return run, err
			}
			run.Crashed, histAtCrash = true, len(w.History(c.Rank))
			continue
		}
		buf = m.Actions(w, buf[:0])
		var acts []checker.Action
		for _, a := range buf {
			switch a.Kind {
			case env.Crash, env.Lose, env.Duplicate:
				continue
			}
			acts = append(acts, a)
		}
		if len(acts) == 0 {
			break
		}
		a := acts[0]
		if rng != nil {
			a = acts[rng.IntN(len(acts))]
		} else {
			for _, b := range acts[1:] {
				if b.P > a.P {
					a = b
				}
			}
		}
		msg, isDeliver := w.Message(a)
		if w, err = m.Apply(w, a); err != nil {
			return run, err
		}
		if v := violated(m, w); v != "" && run.Violation == "" {
			run.Violation = v
		}
		for _, e := range w.LastEffects() {
			if e.Kind != core.EffSend {
				continue
			}
			if _, ok := e.Msg.(ml.App); !ok {
				continue
			}
			if isDeliver && msg != nil {
				if _, ok := msg.(ml.ResendFrom); ok {
					run.Resent[int(w.LastActor())]++
					continue
				}
			}
			if run.Crashed && w.LastActor() == c.Rank && w.Incarnation(c.Rank) > 0 {
				transmitted++
			}
		}
	}
	run.Final = w
	for q := range core.Rank(p.Procs) {
		if w.Incarnation(q) > 0 {
			run.RolledBack = append(run.RolledBack, int(q))
		}
		run.Outputs = append(run.Outputs, lastOutput(w, q))
		var l []string
		for r := range core.Rank(p.Procs) {
			for seq := uint64(1); seq <= proc(w, q).SeqSent(r); seq++ {
				if proc(w, q).Logged(r, seq) {
					l = append(l, fmt.Sprintf("%v#%d", r, seq))
				}
			}
		}
		run.Logs = append(run.Logs, l)
	}
	if run.Crashed {
		h := w.History(c.Rank)
		before := map[uint64]bool{}
		for _, r := range h[:histAtCrash] {
			before[r.Instance] = true
		}
		run.Replayed[int(c.Rank)] = []int{}
		for _, r := range h[histAtCrash:] {
			e, ok := r.Value.(ml.Event)
			if !ok || !before[r.Instance] {
				continue
			}
			switch e.Kind {
			case ml.EvRecv:
				run.Replayed[int(c.Rank)] = append(run.Replayed[int(c.Rank)], int(e.Peer))
			case ml.EvProbe:
				run.Probes[int(c.Rank)] = append(run.Probes[int(c.Rank)], fmt.Sprintf("%v reps=%d", e.Peer, e.Val))
			}
		}
		sends := 0
		for _, r := range h[histAtCrash:] {
			if e, ok := r.Value.(ml.Event); ok && e.Kind == ml.EvSend {
				sends++
			}
		}
		run.Suppressed = sends - transmitted
	}
	return run, nil
}

func recvs(w *env.World, q core.Rank) int {
	n := 0
	for _, r := range w.History(q) {
		if e, ok := r.Value.(ml.Event); ok && e.Kind == ml.EvRecv {
			n++
		}
	}
	return n
}

func lastOutput(w *env.World, q core.Rank) uint64 {
	var v uint64
	for _, r := range w.History(q) {
		if e, ok := r.Value.(ml.Event); ok && e.Kind == ml.EvOutput {
			v = e.Val
		}
	}
	return v
}

func violated(m *env.Model, w *env.World) string {
	for _, pr := range m.Properties() {
		if pr.Kind == checker.Invariant && pr.Check != nil {
			if err := pr.Check(w); err != nil {
				return pr.Name + ": " + err.Error()
			}
		}
	}
	return ""
}

func defineSimulate(fs *flag.FlagSet) registry.SimBuilder {
	program := fs.String("program", "fig51", "the application: "+strings.Join(ml.ProgramNames(), ", "))
	procs := fs.Int("procs", 3, fmt.Sprintf("application processes, 2 … %d", ml.MaxProcs))
	logger := fs.String("logger", "centralized", "centralized|classic|parallel")
	f := fs.Int("f", 1, "acceptor failures the Paxos loggers tolerate, 1 … 2")
	crash := fs.String("crash", "", "RANK@K: crash RANK right after its K-th delivered message, then restart it (empty: no crash)")
	ckEvery := fs.Int("checkpoint-every", 0, "take a checkpoint after every K delivered messages (0: the program's own)")
	delayed := fs.Bool("delayed-ack", false, "§5.2's delayed acknowledgements")
	seed := fs.Uint64("seed", 0, "0: the fixed schedule (the highest rank's action first: for fig51, the figure's order); otherwise a seeded random schedule")
	mut := fs.String("mutant", "", "test-only broken variant")
	walks := fs.Int("walks", 0, "also run this many seeded random walks of the check model (every property checked at every step), 0 … 100000")
	concurrent := fs.Bool("concurrent", false, "random walks: a process may crash while another is down or replaying (default: one failure at a time)")
	crashes := fs.Int("crashes", 4, "random walks: crashes per run (each restarted), 0 … 64")
	measure := defineMeasure(fs) // costcmd.go
	return func(ctx context.Context, progress func(string)) (*registry.SimReport, error) {
		if *walks < 0 || *walks > 100000 || *crashes < 0 || *crashes > 64 {
			return nil, fmt.Errorf("--walks 0 … 100000, --crashes 0 … 64")
		}
		fl := &flags{program: *program, procs: *procs, logger: *logger, f: *f, crashes: 1, recoveries: 1, ckEvery: *ckEvery, delayedAck: *delayed, mut: *mut}
		if *procs < 2 || *procs > ml.MaxProcs {
			return nil, fmt.Errorf("--procs %d: want 2 … %d", *procs, ml.MaxProcs)
		}
		p, err := fl.params()
		if err != nil {
			return nil, err
		}
		if *measure.name != "" {
			return measure.run(p)
		}
		var c Crash
		if *crash != "" {
			if c, err = ParseCrash(*crash, *procs); err != nil {
				return nil, err
			}
		}
		start := time.Now()
		ff, err := Simulate(p, Crash{}, *seed)
		if err != nil {
			return nil, err
		}
		run, err := Simulate(p, c, *seed)
		if err != nil {
			return nil, err
		}
		equal := fmt.Sprint(ff.Outputs) == fmt.Sprint(run.Outputs)
		resent := map[string]int{}
		for q, k := range run.Resent {
			resent[strconv.Itoa(q)] = k
		}
		replayed := map[string][]int{}
		for q, s := range run.Replayed {
			replayed[strconv.Itoa(q)] = s
		}
		rb := run.RolledBack
		if rb == nil {
			rb = []int{}
		}
		rep := &registry.SimReport{Model: "msglog", Mode: "scenario", Seed: *seed, Violations: []registry.ViolationRef{}}
		rep.Seconds = time.Since(start).Seconds()
		rep.Figures = map[string]any{
			"program": p.Program, "procs": p.Procs, "logger": p.Logger.String(), "crash": *crash,
			"rolled_back": rb, "replayed": replayed, "resent": resent, "suppressed": run.Suppressed,
			"outputs": run.Outputs, "failure_free_outputs": ff.Outputs, "outputs_equal_failure_free": equal,
			"steps": run.Steps,
		}
		if run.Violation != "" {
			rep.Violations = append(rep.Violations, registry.ViolationRef{Property: strings.SplitN(run.Violation, ":", 2)[0], Steps: run.Steps})
		}
		var b strings.Builder
		fmt.Fprintf(&b, "msglog program=%s procs=%d logger=%v crash=%s, %d steps\n", p.Program, p.Procs, p.Logger, *crash, run.Steps)
		fmt.Fprintf(&b, "rolled back: %s\n", ints(rb))
		keys := make([]int, 0, len(run.Replayed))
		for q := range run.Replayed {
			keys = append(keys, q)
		}
		sort.Ints(keys)
		for _, q := range keys {
			fmt.Fprintf(&b, "p%d replayed receives from: %s\n", q, ints(run.Replayed[q]))
		}
		var rs []string
		for q := range p.Procs {
			if k, ok := run.Resent[q]; ok {
				rs = append(rs, fmt.Sprintf("p%d %d", q, k))
			}
		}
		fmt.Fprintf(&b, "re-sent on RESEND_FROM: [%s]; sends suppressed: %d\n", strings.Join(rs, ", "), run.Suppressed)
		fmt.Fprintf(&b, "outputs %s, failure-free %s, equal: %v\n", ints(run.Outputs), ints(ff.Outputs), equal)
		if run.Violation != "" {
			fmt.Fprintf(&b, "violation: %s\n", run.Violation)
		}
		if *walks > 0 {
			wp := p
			wp.Crashes = *crashes
			cr, err := Campaign(wp, *walks, 0.01, *concurrent, max(*seed, 1))
			if err != nil {
				return nil, err
			}
			rep.Mode = "scenario+random-walks"
			msgs := 0
			for _, ops := range wp.program().Procs {
				for _, o := range ops {
					if o.Kind == ml.OpSend {
						msgs++
					}
				}
			}
			rep.Figures["walks"], rep.Figures["walk_steps"], rep.Figures["walk_crashes"], rep.Figures["walk_restarts"] = cr.Runs, cr.Steps, cr.Crashes, cr.Restarts
			rep.Figures["walk_deliveries"], rep.Figures["walks_finished"] = cr.Delivered, cr.Finished
			fmt.Fprintf(&b, "random walks: %d runs, %d steps, %d crashes and %d restarts, %d deliveries (%d application messages per failure-free run), %d runs finished (outputs compared with the failure-free run's: %v)\n",
				cr.Runs, cr.Steps, cr.Crashes, cr.Restarts, cr.Delivered, msgs, cr.Finished, deterministic(wp.program()))
			if cr.Violation != "" {
				rep.Violations = append(rep.Violations, registry.ViolationRef{Property: strings.SplitN(cr.Violation, ":", 2)[0]})
				fmt.Fprintf(&b, "violation in run %d: %s\n", cr.Run, cr.Violation)
			} else {
				b.WriteString("every invariant held at every step\n")
			}
		}
		rep.Text = b.String()
		return rep, nil
	}
}

// ints formats a list as "[2, 2, 0]".
func ints[T int | uint64](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}
