package eventlogger

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/props"
	"github.com/ftkernel/ftkernel/registry"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

func init() {
	registry.Register(&registry.Protocol{
		Name:   "eventlogger",
		Doc:    "the event logger of pessimistic message logging (de Camargo 2017 §5.1.3): centralized, Classic Paxos or Parallel Paxos, over statemachine/paxos; the per-process log checked linearizable",
		Define: defineCheck,
		Mutants: []registry.MutantInfo{
			{Name: string(el.MutantRetrieveOneAcceptor), Doc: "retrieve-since reads the votes of one acceptor instead of going through a quorum"},
			{Name: string(el.MutantNoIncarnationFence), Doc: "a crashed incarnation's command chosen after its successor's recovery read still changes the log"},
			{Name: string(el.MutantDropQueuedCall), Doc: "a call made while a restarted process's recovery read runs is dropped when the read completes (it never returns)"},
		},
		Simulate: defineSimulate,
	})
}

// Property names.
const (
	Linearizable_ = "linearizable"
	Termination   = "termination"
)

// Params are a check's parameters.
type Params struct {
	Kind         el.Kind
	Procs, F     int
	Experimental bool
	// Saves is the number of saves each process makes, then (Remove) a
	// remove-up-to(1), then a retrieve-since(0).
	Saves  int
	Remove bool
	// Crashes is the crash budget: application processes and, for the
	// Paxos loggers, acceptors (at most f of them may crash: the others
	// are survivors); CrashLogger lets the centralized logger crash.
	Crashes     int
	CrashLogger bool
	// Recoveries is the budget of restarts of crashed processes from
	// their stable storage (crash-recovery).
	Recoveries int
	// Loss is a budget of messages lost (any message; Paxos's channels
	// are unreliable, and every role retransmits). The centralized
	// logger's channels are reliable (§5.1.1): no loss there.
	Loss int
	// Dup is a budget of messages duplicated (Paxos loggers only, as
	// Loss: Paxos's channels may duplicate, §2.1.2).
	Dup int
	// Timing is env.BoundedDelay (with Delta; termination is checked) or
	// env.Asynchronous (safety only: timers fire at any step, so bound
	// the search with --max-depth).
	Timing env.Timing
	Delta  int
	// Retransmit is Paxos's retransmission timeout in ticks (0: 2Δ+1).
	Retransmit int
	// ForgetCrashed replaces a crashed process's node by its Forget (its
	// initial state: no property reads a node), env.Config.ForgetCrashed.
	ForgetCrashed bool
	Mutant        mutant.Name
	CrashProb     float64
}

func (p Params) config() el.Config {
	c := el.Config{Kind: p.Kind, Procs: p.Procs, F: p.F, Experimental: p.Experimental, Mutant: p.Mutant}
	if c.Kind != el.Centralized {
		c.Consensus = Paxos{Retransmit: uint64(p.retransmit())}
	}
	return c
}

// retransmit is the retransmission timeout in ticks: Retransmit, or 2Δ+1.
func (p Params) retransmit() int {
	if p.Retransmit > 0 {
		return p.Retransmit
	}
	return 2*max(p.Delta, 1) + 1
}

// Schedule is the calls: each application process saves, removes and
// retrieves; under Classic R0 first pre-executes phase 1 (Start).
func (p Params) Schedule() [][]core.Input {
	c := p.config()
	s := make([][]core.Input, c.N())
	for q := range p.Procs {
		for k := range p.Saves {
			s[q] = append(s[q], el.Save{Det: fmt.Sprintf("d%d.%d", q, k+1)})
		}
		if p.Remove {
			s[q] = append(s[q], el.RemoveUpTo{ID: 1})
		}
		s[q] = append(s[q], el.RetrieveSince{ID: 0})
	}
	if c.Kind == el.Classic {
		s[c.Coordinator(0)] = []core.Input{el.Start{}}
	}
	return s
}

// survivors are the ranks that never crash: the centralized logger unless
// CrashLogger; for the Paxos loggers, the acceptor nodes past the first f
// (at most f acceptors fail: "para tolerar f falhas ele requer 2f + 1
// acceptors"), and the dedicated nodes that host no acceptor.
func (p Params) survivors() []core.Rank {
	c := p.config()
	var out []core.Rank
	if c.Kind == el.Centralized {
		if !p.CrashLogger {
			out = append(out, core.Rank(c.Procs))
		}
		return out
	}
	accs := c.AcceptorRanks(0)
	may := 0
	for l := range c.Loggers() {
		q := core.Rank(c.Procs + l)
		if slices.Contains(accs, q) && may < p.F {
			may++
			continue
		}
		out = append(out, q)
	}
	return out
}

// NewModel builds the environment of p.
func NewModel(p Params) (*env.Model, error) {
	c := p.config()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "eventlogger %v procs=%d f=%d loggers=%d saves=%d", p.Kind, p.Procs, p.F, c.Loggers(), p.Saves)
	if p.Timing == env.Asynchronous {
		b.WriteString(" timing=async")
	}
	if p.Experimental {
		b.WriteString(" deployment=experimental")
	}
	if p.Remove {
		b.WriteString(" remove")
	}
	if p.CrashLogger {
		b.WriteString(" crash-logger")
	}
	if p.Loss > 0 {
		fmt.Fprintf(&b, " loss=%d", p.Loss)
	}
	if p.Dup > 0 {
		fmt.Fprintf(&b, " dup=%d", p.Dup)
	}
	if p.Mutant != mutant.None {
		b.WriteString(" mutant=" + string(p.Mutant))
	}
	cfg := env.Config{
		Name: b.String(), N: c.N(), Crashes: p.Crashes, Network: env.FIFO, Detector: env.DetectorPerfect,
		Timing: p.Timing, Delta: p.Delta, Blocking: true,
		NewNode: func(r core.Rank, _ int) core.Machine {
			n, err := el.New(r, c)
			if err != nil {
				panic(err) // validated above
			}
			return n
		},
		Schedules:     [][][]core.Input{p.Schedule()},
		Survivors:     p.survivors(),
		Properties:    Properties(p),
		CrashProb:     p.CrashProb,
		ForgetCrashed: p.ForgetCrashed,
		Codec: env.Codec{
			Node:    func(b []byte, r core.Rank, _ int) (core.Machine, error) { return el.DecodeNode(b, r, c) },
			Message: func(b []byte) (core.Message, error) { return el.DecodeMessage(b, c) },
			Value:   el.DecodeValue,
		},
	}
	if p.Loss > 0 {
		cfg.Loss, cfg.Losses = env.LossAny, p.Loss
	}
	cfg.Duplicates = p.Dup
	if p.Recoveries > 0 {
		cfg.Faults, cfg.Recoveries = env.CrashRecovery, p.Recoveries
	}
	return env.New(cfg)
}

// Properties: the log is linearizable (at quiescent worlds, where every
// call made has returned or never will), and termination.
func Properties(p Params) []checker.Property[*env.World] {
	lin := []checker.Property[*env.World]{
		{Name: Linearizable_, Kind: checker.Quiescence,
			Doc:   "the event log is linearizable: each process's save, remove-up-to and retrieve-since, as recorded (a call cut by a crash pending), are those of one sequential log per process (porcupine)",
			Check: func(w *env.World) error { return Linearizable(w, p.Procs) }},
	}
	if p.Timing != env.BoundedDelay {
		return lin
	}
	ps := lin
	term := props.Eventually(Termination,
		fmt.Sprintf("eventually every live application process's calls have all returned, assuming at most f=%d acceptors down (and, centralized, the logger up); bounded delay Δ, retransmission after 2Δ+1 ticks", p.F),
		func(w *env.World) bool {
			return p.Kind != el.Centralized || p.CrashLogger || !w.Crashed(core.Rank(p.Procs))
		},
		func(w *env.World) error {
			for q := range core.Rank(p.Procs) {
				if w.Crashed(q) {
					continue
				}
				if w.Awaiting(q) || len(w.PendingCalls(q)) > 0 {
					return fmt.Errorf("p%d still waits: %d calls to make, awaiting=%v", q, len(w.PendingCalls(q)), w.Awaiting(q))
				}
			}
			return nil
		})
	if p.CrashLogger {
		term.ExpectFail = true
		term.Doc += "; with --crash-logger the centralized logger may crash and the processes block (\"bloqueante\"): expected to fail"
		term.Check = func(w *env.World) error {
			for q := range core.Rank(p.Procs) {
				if !w.Crashed(q) && (w.Awaiting(q) || len(w.PendingCalls(q)) > 0) {
					return fmt.Errorf("p%d blocks: its call waits for the crashed logger", q)
				}
			}
			return nil
		}
	}
	ps = append(ps, term)
	if p.Loss > 0 || p.Dup > 0 || p.Recoveries > 0 {
		// The environment's fault budgets, checked on every step.
		ps = append(ps, env.FaultProperties()...)
	}
	return append(ps, env.TimingProperties()...)
}

// Ranges of the check's flags.
const (
	MaxCheckProcs = 64
	MaxCheckF     = 2
	MaxCheckSaves = 64
)

type flags struct {
	logger, deployment, mut string
	procs, f, saves         int
	crashes, delta, loss    int
	dup, retransmit         int
	recoveries              int
	remove, crashLogger     bool
	forget                  bool
	timing                  string
	fs                      *flag.FlagSet
}

var flagNames = []string{"logger", "deployment", "procs", "f", "saves", "remove", "crashes", "crash-logger", "loss", "dup", "recoveries", "timing", "delta", "retransmit", "forget-crashed", "mutant"}

func bind(fs *flag.FlagSet, def Params) *flags {
	f := &flags{fs: fs}
	fs.StringVar(&f.logger, "logger", def.Kind.String(), "centralized|classic|parallel")
	fs.StringVar(&f.deployment, "deployment", "table", "table (Table 5.1's: Parallel's coordinator-acceptor co-located with its process; Classic's coordinator a replica) or experimental (§5.3.1: dedicated acceptor nodes; Classic's coordinator on a node of its own)")
	fs.IntVar(&f.procs, "procs", def.Procs, fmt.Sprintf("application processes n, 1 … %d", MaxCheckProcs))
	fs.IntVar(&f.f, "f", def.F, fmt.Sprintf("acceptor failures tolerated f (2f+1 acceptors), 1 … %d", MaxCheckF))
	fs.IntVar(&f.saves, "saves", def.Saves, fmt.Sprintf("saves per process before its retrieve-since(0), 1 … %d", MaxCheckSaves))
	fs.BoolVar(&f.remove, "remove", def.Remove, "each process calls remove-up-to(1) after its saves")
	fs.IntVar(&f.crashes, "crashes", def.Crashes, "crash budget: application processes and, for the Paxos loggers, up to f acceptors")
	fs.IntVar(&f.recoveries, "recoveries", 0, "recovery budget R: at most this many restarts of crashed processes from stable storage (a restarted application process first reads its determinants), 0 … 8")
	fs.IntVar(&f.loss, "loss", 0, "loss budget L: at most this many messages lost in a run (Paxos loggers only), 0 … 8")
	fs.IntVar(&f.dup, "dup", 0, "duplication budget D: at most this many messages duplicated in a run (Paxos loggers only), 0 … 8")
	fs.BoolVar(&f.crashLogger, "crash-logger", false, "the centralized logger may crash (its blocking: termination is expected to fail)")
	fs.StringVar(&f.timing, "timing", "bounded", "bounded: every message delivered within Δ ticks, retransmission after 2Δ+1 (termination checked); async: no clock, timers fire at any step, messages overtake one another as far as FIFO channels allow (safety only; bound the search with --max-depth)")
	fs.IntVar(&f.delta, "delta", def.Delta, "delay bound Δ in ticks under --timing bounded, 1 … 2")
	fs.IntVar(&f.retransmit, "retransmit", 0, "Paxos's retransmission timeout in ticks, 1 … 16 (0: 2Δ+1)")
	fs.BoolVar(&f.forget, "forget-crashed", false, "replace a crashed process's state by its initial one (no property reads a node): fewer states, the same verdicts (checker/env forget.go); not with --recoveries")
	fs.StringVar(&f.mut, "mutant", "", "test-only broken variant (see ftcheck list)")
	return f
}

func (f *flags) params() (Params, error) {
	if err := flagcheck.First(
		flagcheck.Int("procs", int64(f.procs), 1, MaxCheckProcs, ""),
		flagcheck.Int("f", int64(f.f), 1, MaxCheckF, ""),
		flagcheck.Int("saves", int64(f.saves), 1, MaxCheckSaves, ""),
		flagcheck.Int("delta", int64(f.delta), 1, 2, ""),
		flagcheck.Int("loss", int64(f.loss), 0, 8, ""),
		flagcheck.Int("dup", int64(f.dup), 0, 8, ""),
		flagcheck.Int("retransmit", int64(f.retransmit), 0, 16, ""),
		flagcheck.Int("recoveries", int64(f.recoveries), 0, 8, ""),
	); err != nil {
		return Params{}, err
	}
	return f.build()
}

func (f *flags) build() (Params, error) {
	k, err := el.ParseKind(f.logger)
	if err != nil {
		return Params{}, fmt.Errorf("--logger: %v", err)
	}
	p := Params{Kind: k, Procs: f.procs, F: f.f, Saves: f.saves, Remove: f.remove, Crashes: f.crashes,
		CrashLogger: f.crashLogger, Loss: f.loss, Dup: f.dup, Retransmit: f.retransmit, ForgetCrashed: f.forget, Recoveries: f.recoveries, Delta: f.delta, Mutant: mutant.Name(f.mut)}
	if p.Recoveries > 0 && p.Crashes == 0 {
		return p, fmt.Errorf("--recoveries %d needs --crashes ≥ 1: only a crashed process restarts", p.Recoveries)
	}
	if p.ForgetCrashed && p.Recoveries > 0 {
		return p, fmt.Errorf("--forget-crashed: not with --recoveries (a restart reads the stable state a forgotten node has lost)")
	}
	if p.Loss > 0 && k == el.Centralized {
		return p, fmt.Errorf("--loss: the centralized logger's channels are reliable (§5.1.1)")
	}
	if p.Dup > 0 && k == el.Centralized {
		return p, fmt.Errorf("--dup: the centralized logger's channels are reliable (§5.1.1)")
	}
	switch f.timing {
	case "bounded", "":
		p.Timing = env.BoundedDelay
	case "async":
		p.Timing, p.Delta = env.Asynchronous, 0
	default:
		return p, fmt.Errorf("--timing %q: want bounded or async", f.timing)
	}
	switch f.deployment {
	case "table":
	case "experimental":
		p.Experimental = true
	default:
		return p, fmt.Errorf("--deployment %q: want table or experimental", f.deployment)
	}
	if p.CrashLogger && k != el.Centralized {
		return p, fmt.Errorf("--crash-logger is the centralized logger's crash")
	}
	if p.Mutant != mutant.None && !slices.Contains(el.Mutants, p.Mutant) {
		return p, fmt.Errorf("--mutant %q: unknown eventlogger mutant (see ftcheck list)", f.mut)
	}
	if k == el.Centralized && el.PaxosOnly(p.Mutant) {
		return p, fmt.Errorf("--mutant %s: a mutant of the Paxos loggers", p.Mutant)
	}
	maxC := p.Procs
	if k != el.Centralized {
		maxC += p.F
	} else if p.CrashLogger {
		maxC++
	}
	if p.Crashes < 0 || p.Crashes > maxC {
		return p, fmt.Errorf("--crashes %d: want 0 … %d (application processes%s)", p.Crashes, maxC,
			map[bool]string{true: " and f acceptors", false: ""}[k != el.Centralized])
	}
	return p, nil
}

func (f *flags) own() map[string]string {
	out := map[string]string{}
	for _, name := range flagNames {
		out[name] = f.fs.Lookup(name).Value.String()
	}
	return out
}

// DefaultCheck: 2 application processes, f = 1, one crash, one save each.
var DefaultCheck = Params{Kind: el.Parallel, Procs: 2, F: 1, Saves: 1, Crashes: 1, Timing: env.BoundedDelay, Delta: 1}

func defineCheck(fs *flag.FlagSet) registry.Builder {
	f := bind(fs, DefaultCheck)
	return func() (registry.Runner, error) {
		p, err := f.params()
		if err != nil {
			return nil, err
		}
		m, err := NewModel(p)
		if err != nil {
			return nil, err
		}
		return registry.Erase(m, "eventlogger", f.own()), nil
	}
}

func mutantName(s string) mutant.Name { return mutant.Name(s) }

// own2 is own for flags built without a FlagSet (simulate's walks).
func (f *flags) own2() map[string]string {
	return map[string]string{
		"logger": f.logger, "deployment": f.deployment, "procs": fmt.Sprint(f.procs), "f": fmt.Sprint(f.f),
		"saves": fmt.Sprint(f.saves), "remove": fmt.Sprint(f.remove), "crashes": fmt.Sprint(f.crashes),
		"crash-logger": fmt.Sprint(f.crashLogger), "loss": fmt.Sprint(f.loss), "dup": fmt.Sprint(f.dup), "recoveries": fmt.Sprint(f.recoveries), "timing": "bounded", "delta": fmt.Sprint(f.delta), "retransmit": fmt.Sprint(f.retransmit), "forget-crashed": fmt.Sprint(f.forget), "mutant": f.mut,
		registry.ModelParam: "eventlogger",
	}
}
