package ringfd

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/props"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// CheckParams is one exhaustive-check model, the flags of `ftcheck check
// ringfd --n N --procs P --crashes F --delta D --period δ --timeout η
// [--bmg paper|ompi] [--skip=true|false]`. Times are in ticks.
type CheckParams struct {
	N, Procs, Crashes int
	// Delta is the delay bound Δ: every message is delivered within [t+1,
	// t+Δ] of its send at t (env.BoundedDelay).
	Delta           int
	Period, Timeout uint64
	BMG             fd.BMG
	NoSkip          bool
	Network         env.Network
	RequestWaits    bool
	Mutant          mutant.Name
	// DaemonCrashesOnly restricts crashes to daemons (with their
	// processes), the model before single process crashes were checked;
	// by default a crash strikes a daemon or a single process.
	DaemonCrashesOnly bool
	// Ring is the observation ring (fd.Config.Ring; nil: the identity).
	// Rotation symmetry (SymModel, --symmetry) needs the identity.
	Ring []core.Rank
	// ForgetCrashed: a crashed daemon's node is replaced by its Forget
	// (Reported kept; env.Config.ForgetCrashed, fd Daemon.Forget).
	ForgetCrashed bool
}

// seqWindow is a heartbeat-number window wide enough for Δ and δ: fewer
// than ⌈Δ/δ⌉ + 2 heartbeats of one emitter are ever in flight.
func (p CheckParams) seqWindow() uint64 {
	inFlight := (uint64(p.Delta)+p.Period-1)/p.Period + 2
	return min(255, max(4, 2*inFlight+2))
}

// Config is the detector configuration of p.
func (p CheckParams) Config() fd.Config {
	return fd.Config{N: p.N, Procs: p.Procs, Ring: p.Ring, Period: p.Period, Timeout: p.Timeout, BMG: p.BMG, NoSkip: p.NoSkip,
		RequestWaitsForTick: p.RequestWaits, SeqWindow: p.seqWindow(), Mutant: p.Mutant}
}

// NewCheckModel is the bounded-delay environment (env.BoundedDelay: a
// clock in ticks, timers at their deadline, re-arming a timer replaces its
// deadline, every message delivered within Δ ticks, every order of a
// tick's steps explored) over every daemon and process of p. Heartbeat
// numbers wrap (Config.SeqWindow) so that the state space is finite.
// Crashes, at most p.Crashes, at any step, strike a daemon, whose processes
// die with it in the same step (env.Config.Hosts: a node failure), or a
// single application process, whose crash only its daemon observes, at
// once (env.DetectorLocal: the SIGCHLD of §4.4); daemons detect each other
// by heartbeats only. With DaemonCrashesOnly, processes never crash alone
// (they are env survivors, dying only with their daemon).
func NewCheckModel(p CheckParams) (*env.Model, error) {
	cfg, err := fd.Normalize(p.Config())
	if err != nil {
		return nil, err
	}
	if p.Crashes < 0 || p.Crashes >= p.N {
		return nil, fmt.Errorf("ringfd: --crashes %d: want 0 … N−1 = %d (one daemon survives)", p.Crashes, p.N-1)
	}
	ranks := cfg.Ranks()
	start := []core.Input{fd.Start{}}
	sched := make([][]core.Input, ranks)
	for d := 0; d < p.N; d++ {
		sched[d] = start
	}
	hosts := make([]core.Rank, ranks)
	var survivors []core.Rank
	for r := range hosts {
		hosts[r] = core.Rank(r)
		if cfg.IsProcess(core.Rank(r)) {
			hosts[r] = cfg.Host(core.Rank(r))
			if p.DaemonCrashesOnly {
				survivors = append(survivors, core.Rank(r))
			}
		}
	}
	c := &cfg
	return env.New(env.Config{
		Name: checkName(p, ranks), N: ranks, Crashes: p.Crashes, Network: p.Network,
		Timing: env.BoundedDelay, Delta: p.Delta, Detector: env.DetectorLocal, Hosts: hosts,
		Survivors: survivors, Schedules: [][][]core.Input{sched},
		NewNode: func(r core.Rank, _ int) core.Machine {
			m, _ := fd.New(r, *c)
			return m
		},
		Properties: CheckProperties(c),
		MaySend:    maySend(c),

		ForgetCrashed: p.ForgetCrashed,
		Codec: env.Codec{
			Node:    func(b []byte, r core.Rank, _ int) (core.Machine, error) { return fd.DecodeNode(b, r, *c) },
			Message: func(b []byte) (core.Message, error) { return fd.DecodeMessage(b, c.Ranks()) },
		},
	})
}

// checkName names the model: daemons and processes apart, and which ranks
// are which (env appends n, the number of ranks of both kinds).
func checkName(p CheckParams, ranks int) string {
	name := fmt.Sprintf("ringfd daemons=%d processes=%d", p.N, ranks-p.N)
	if ranks > p.N {
		name += fmt.Sprintf(" (%d per daemon; ranks 0…%d are the daemons, %d…%d the processes)", p.Procs, p.N-1, p.N, ranks-1)
	}
	return name + fmt.Sprintf(" period=%d timeout=%d", p.Period, p.Timeout)
}

// CheckProperties are the detector's properties over bounded-delay env
// worlds. A daemon's crash crashes its processes in env too, so
// a live process always has a live daemon; "p suspects q" reads Reported_p
// ∋ q and, for a daemon q, also every process of q. The environment's
// timing rules (env.TimingProperties) come last.
func CheckProperties(c *fd.Config) []checker.Property[*env.World] {
	suspects := func(w *env.World, p, q core.Rank) bool {
		n := w.Node(p)
		if !knows(n, q) {
			return false
		}
		if c.IsProcess(q) {
			return true
		}
		for j := 0; j < c.Procs; j++ {
			if !knows(n, c.ProcRank(q, j)) {
				return false
			}
		}
		return true
	}
	accuracy := props.StrongAccuracy(PropAccuracy,
		"no live daemon or process is in any Reported set (strong accuracy; needs η above the heartbeat gap plus the delay bound, and above a mending request's round trip)",
		func(w *env.World, p, q core.Rank) bool { return knows(w.Node(p), q) })
	accuracy.Stable = true
	return append([]checker.Property[*env.World]{
		accuracy,
		props.StrongCompleteness(PropCompleteness,
			"every crashed daemon, with its processes, and every crashed process is eventually in Reported at every live daemon and every live process (strong completeness, §4.4–4.6)",
			suspects, nil),
		{Name: PropRingRepair, Kind: checker.Eventually,
			Doc:   "every live daemon eventually observes its closest live ring predecessor and is its observer (§4.5, Fig. 3)",
			Check: func(w *env.World) error { return ringRepaired(c, w) }},
		{Name: PropForwardOnce, Kind: checker.Transition,
			Doc: "a daemon broadcasts only when it learns a new id (FORWARDING's guard, §4.6 (3): every daemon forwards each failure once)",
			// ReadsStep: the verdict reads the actor (LastActor), its
			// effects (LastEffects) and its own record before and after
			// (Node(a) of prev and next), nothing else of either world
			// (TestForwardOnceReads).
			Reads: checker.ReadsStep,
			CheckStep: func(prev *env.World, _ checker.Action, next *env.World) error {
				a := next.LastActor()
				if a < 0 || !c.IsDaemon(a) {
					return nil
				}
				sent := false
				for _, e := range next.LastEffects() {
					if _, ok := e.Msg.(fd.Fault); ok && e.Kind == core.EffSend {
						sent = true
					}
				}
				if !sent {
					return nil
				}
				grew := false
				eachReported(next.Node(a), func(x core.Rank) { grew = grew || !knows(prev.Node(a), x) })
				if !grew {
					return fmt.Errorf("%v sent a FAULT without learning anything new", a)
				}
				return nil
			}},
	}, env.TimingProperties()...)
}

// ringRepaired is ring repair over an env world.
func ringRepaired(c *fd.Config, w *env.World) error {
	for d := 0; d < c.N; d++ {
		if w.Crashed(core.Rank(d)) {
			continue
		}
		want := c.RingPred(core.Rank(d))
		for want != core.Rank(d) && w.Crashed(want) {
			want = c.RingPred(want)
		}
		if want == core.Rank(d) {
			want = core.NoRank
		}
		n := w.Node(core.Rank(d)).(*fd.Daemon)
		if n.Pred() != want {
			return fmt.Errorf("%v observes %v, not its closest live predecessor %v", core.Rank(d), n.Pred(), want)
		}
		if want != core.NoRank && w.Node(want).(*fd.Daemon).Obs() != core.Rank(d) {
			return fmt.Errorf("%v sends heartbeats to %v, not to %v", want, w.Node(want).(*fd.Daemon).Obs(), core.Rank(d))
		}
	}
	return nil
}
