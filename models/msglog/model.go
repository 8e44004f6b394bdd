package msglog

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	elmodel "github.com/ftkernel/ftkernel/models/eventlogger"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
	px "github.com/ftkernel/ftkernel/statemachine/paxos"
)

func init() {
	var ms []registry.MutantInfo
	for _, m := range append(slices.Clone(ml.Mutants), ModelMutants...) {
		ms = append(ms, registry.MutantInfo{Name: string(m), Doc: mutantDocs[m]})
	}
	registry.Register(&registry.Protocol{
		Name:     "msglog",
		Doc:      "pessimistic sender-based message logging with uncoordinated checkpoints (de Camargo 2017, Algorithm 4, §5.1–5.2) over the event logger (centralized, Classic or Parallel Paxos): replay, GC, re-send, suppression",
		Define:   defineCheck,
		Mutants:  ms,
		Simulate: defineSimulate,
	})
}

var mutantDocs = map[mutant.Name]string{
	ml.MutantDeliverBeforeAck:   "sends and outputs do not wait for the determinants' acknowledgements (optimistic logging)",
	ml.MutantGCLiveCounter:      "GC carries the live receive counter instead of the stable one",
	ml.MutantReplayArrivalOrder: "an ANY_SOURCE receive is replayed in arrival order instead of from its determinant",
	ml.MutantZeroBasedIDs:       "ambiguity A literally: 0-based message ids, deleted when id ≤ stable and re-sent when id > recv",
	ml.MutantRetransmitReceived: "a recovering process re-transmits the sends its peer already received",
	ml.MutantForgetRepetitions:  "a recovering process replays an Iprobe without its repetition count",
	ml.MutantRemoveLiveLastID:   "ambiguity C literally: el_remove(last_id) with last_id as it is when the logger takes the call, the checkpoint not waiting for determinants in flight",
	ml.MutantKeepSequenceGap:    "a restarted process keeps a message that skips a sequence number (its peer sent it before the RESEND_FROM) instead of dropping it",
	MutantSurvivorRollback:      "a survivor that answers a restarted peer's RESEND_FROM also restores its own last checkpoint and recovers (coordinated rollback; rollback.go)",
}

// Params are a check's parameters.
type Params struct {
	Program string
	Procs   int
	Logger  el.Kind
	F       int
	// Crashes is the crash budget (application processes only: the
	// logger's own failures are models/eventlogger's), Recoveries the
	// restarts from stable storage.
	Crashes, Recoveries int
	CheckpointEvery     int
	DelayedAck          bool
	// Retransmit is the Paxos loggers' retransmission timeout in ticks
	// (0: paxos.DefaultRetransmit, 2Δ+1 with Δ = 1); the centralized
	// logger has no timer.
	Retransmit int
	Mutant     mutant.Name
	CrashProb  float64
}

// Config is the protocol configuration of p.
func (p Params) Config() (*ml.Config, el.Config, error) {
	mk, ok := ml.Programs[p.Program]
	if !ok {
		return nil, el.Config{}, fmt.Errorf("--program %q: want one of %s", p.Program, strings.Join(ml.ProgramNames(), ", "))
	}
	prog, err := mk(p.Procs)
	if err != nil {
		return nil, el.Config{}, err
	}
	ec := el.Config{Kind: p.Logger, Procs: p.Procs, F: p.F}
	if ec.Kind != el.Centralized {
		ec.Consensus = elmodel.Paxos{Retransmit: uint64(p.Retransmit)}
	}
	if err := ec.Validate(); err != nil {
		return nil, ec, err
	}
	c := &ml.Config{Program: prog, Log: Logger{Cfg: ec}, DelayedAck: p.DelayedAck, CheckpointEvery: p.CheckpointEvery, Mutant: protocolMutant(p.Mutant)}
	return c, ec, c.Validate()
}

// program is p's program (Config checked it).
func (p Params) program() ml.Program {
	prog, _ := ml.Programs[p.Program](p.Procs)
	return prog
}

// NewModel builds the environment of p: the application processes (ranks
// 0 … procs-1) and the logger's nodes, reliable FIFO channels (§5.1.1), a
// perfect failure detector, crash-recovery. Under the centralized logger
// the timing is asynchronous; the Paxos loggers retransmit on timers, so
// their runs use bounded delay (Δ = 1 tick, retransmission after 3).
func NewModel(p Params) (*env.Model, error) {
	c, ec, err := p.Config()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "msglog program=%s procs=%d logger=%v", p.Program, p.Procs, p.Logger)
	if p.Logger != el.Centralized {
		fmt.Fprintf(&b, " f=%d", p.F)
		if p.Retransmit > 0 {
			fmt.Fprintf(&b, " retransmit=%d", p.Retransmit)
		}
	}
	fmt.Fprintf(&b, " crashes=%d recoveries=%d", p.Crashes, p.Recoveries)
	if p.CheckpointEvery > 0 {
		fmt.Fprintf(&b, " checkpoint-every=%d", p.CheckpointEvery)
	}
	if p.DelayedAck {
		b.WriteString(" delayed-ack")
	}
	if p.Mutant != mutant.None {
		b.WriteString(" mutant=" + string(p.Mutant))
	}
	sched := make([][]core.Input, ec.N())
	for r := range p.Procs {
		sched[r] = []core.Input{ml.Start{}}
	}
	if ec.Kind == el.Classic {
		sched[ec.Coordinator(0)] = []core.Input{el.Start{}}
	}
	var survivors []core.Rank
	for r := p.Procs; r < ec.N(); r++ {
		survivors = append(survivors, core.Rank(r))
	}
	cfg := env.Config{
		Name: b.String(), N: ec.N(), Crashes: p.Crashes, Network: env.FIFO, Detector: env.DetectorPerfect,
		NewNode: func(r core.Rank, _ int) core.Machine {
			if int(r) < p.Procs {
				n, err := ml.New(r, c)
				if err != nil {
					panic(err) // validated above
				}
				return withModelMutant(p.Mutant, n)
			}
			n, err := el.New(r, ec)
			if err != nil {
				panic(err)
			}
			return n
		},
		Schedules:  [][][]core.Input{sched},
		Survivors:  survivors,
		Properties: Properties(p),
		CrashProb:  p.CrashProb,
		Codec:      mutantCodec(p.Mutant, codec(c, ec)), // codec.go, rollback.go
	}
	if ec.Kind != el.Centralized {
		cfg.Timing, cfg.Delta = env.BoundedDelay, 1
	}
	if p.Recoveries > 0 {
		cfg.Faults, cfg.Recoveries = env.CrashRecovery, p.Recoveries
	}
	return env.New(cfg)
}

// Limits of the check's flags.
const (
	MaxCheckProcs = 16
	MaxCheckF     = 2
	MaxBudget     = 8
	// MaxRetransmit bounds --retransmit (ticks).
	MaxRetransmit = 16
)

type flags struct {
	program, logger, mut string
	procs, f, crashes    int
	recoveries, ckEvery  int
	retransmit           int
	delayedAck           bool
	fs                   *flag.FlagSet
}

var flagNames = []string{"program", "procs", "logger", "f", "crashes", "recoveries", "checkpoint-every", "delayed-ack", "retransmit", "mutant"}

func bind(fs *flag.FlagSet) *flags {
	f := &flags{fs: fs}
	fs.StringVar(&f.program, "program", "fig51", "the application: "+strings.Join(ml.ProgramNames(), ", "))
	fs.IntVar(&f.procs, "procs", 3, fmt.Sprintf("application processes, 2 … %d (fig51: 3)", MaxCheckProcs))
	fs.StringVar(&f.logger, "logger", "centralized", "the event logger: centralized|classic|parallel")
	fs.IntVar(&f.f, "f", 1, fmt.Sprintf("acceptor failures the Paxos loggers tolerate (2f+1 acceptors), 1 … %d", MaxCheckF))
	fs.IntVar(&f.crashes, "crashes", 1, fmt.Sprintf("crash budget (application processes), 0 … %d", MaxBudget))
	fs.IntVar(&f.recoveries, "recoveries", 1, fmt.Sprintf("restarts from stable storage, 0 … %d", MaxBudget))
	fs.IntVar(&f.ckEvery, "checkpoint-every", 0, "take a checkpoint after every K delivered messages (0: the program's own checkpoints only)")
	fs.BoolVar(&f.delayedAck, "delayed-ack", false, "§5.2's optimization: a determinant's acknowledgement is awaited only before the next send, output or checkpoint")
	fs.IntVar(&f.retransmit, "retransmit", 0, fmt.Sprintf("the Paxos loggers' retransmission timeout in ticks, 1 … %d (0: %d, that is 2Δ+1 with Δ = 1); not with --logger centralized", MaxRetransmit, px.DefaultRetransmit))
	fs.StringVar(&f.mut, "mutant", "", "test-only broken variant (see ftcheck list)")
	return f
}

func (f *flags) params() (Params, error) {
	if err := flagcheck.First(
		flagcheck.Int("procs", int64(f.procs), 2, MaxCheckProcs, ""),
		flagcheck.Int("f", int64(f.f), 1, MaxCheckF, ""),
		flagcheck.Int("crashes", int64(f.crashes), 0, MaxBudget, ""),
		flagcheck.Int("recoveries", int64(f.recoveries), 0, MaxBudget, ""),
		flagcheck.Int("checkpoint-every", int64(f.ckEvery), 0, ml.MaxOps, ""),
		flagcheck.Int("retransmit", int64(f.retransmit), 0, MaxRetransmit, ""),
	); err != nil {
		return Params{}, err
	}
	k, err := el.ParseKind(f.logger)
	if err != nil {
		return Params{}, fmt.Errorf("--logger: %v", err)
	}
	p := Params{Program: f.program, Procs: f.procs, Logger: k, F: f.f, Crashes: f.crashes, Recoveries: f.recoveries,
		CheckpointEvery: f.ckEvery, DelayedAck: f.delayedAck, Retransmit: f.retransmit, Mutant: mutant.Name(f.mut)}
	if p.Retransmit > 0 && p.Logger == el.Centralized {
		return p, fmt.Errorf("--retransmit %d needs --logger classic or parallel: the centralized logger has no retransmission timer", p.Retransmit)
	}
	if p.Recoveries > 0 && p.Crashes == 0 {
		return p, fmt.Errorf("--recoveries %d needs --crashes ≥ 1: only a crashed process restarts", p.Recoveries)
	}
	if _, _, err := p.Config(); err != nil {
		return p, err
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

func defineCheck(fs *flag.FlagSet) registry.Builder {
	f := bind(fs)
	return func() (registry.Runner, error) {
		p, err := f.params()
		if err != nil {
			return nil, err
		}
		m, err := NewModel(p)
		if err != nil {
			return nil, err
		}
		return registry.Erase(m, "msglog", f.own()), nil
	}
}
