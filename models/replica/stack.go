package replica

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/props"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// Stack-only property names.
const (
	// NoFalseDeclaration: no live host is declared failed by a live host.
	NoFalseDeclaration = "no-false-declaration"
	// OneMaster: no two live replicas of a logical process both act as
	// its master.
	OneMaster = "one-master"
	// NoDuplicateSends: in a run without crashes, no more DATA than one
	// per replica of the destination of each logical send.
	NoDuplicateSends = "no-duplicate-sends"
)

// StackParams are the detector's parameters of the P2P-MPI stack (`ftcheck
// check replica --fd brr|dbrr`).
type StackParams struct {
	Variant fd.Variant // BRR or DBRR (RR and Random are accepted too)
	// Cleanup is T_cleanup in rounds of T_gossip; 0 is the paper's
	// setting (fd.PaperCleanup with fd.CleanupMargin: DBRR 3⌈log2 n⌉).
	Cleanup uint64
	Ping    bool   // §5.3's ping phase before a declaration
	TGossip uint64 // T_gossip in ticks
	// PingTimeout in ticks, 2Δ < PingTimeout < TGossip (with Ping).
	PingTimeout uint64
	// MaxRounds bounds the gossip rounds of every host (> 0: the check
	// must end).
	MaxRounds uint64
	Delta     int // Δ in ticks: message delays in [1, Δ]
}

// NewStackModel builds the replica model p on the P2P-MPI stack: one Host
// per replica (replica and gossip module of rank h; the detector's n is the
// number of replicas), in checker/env under bounded delay (Δ = s.Delta
// ticks), with the environment's detector off: failures are learned only
// from gossip. The replica model's properties are kept, with the
// quiescence ones (validity, agreement, backup and queue drained, send
// cost) checked only in runs where every crashed host was declared by
// every live one: the bounded run (s.MaxRounds) may end before detection,
// and a replica waiting for a crashed master nobody declared is then an
// artefact of the bound. Two properties are added: no-false-declaration
// (props.StrongAccuracy over the detector's declarations) and one-master.
// Errors: those of NewModel, a bad detector configuration, s.PingTimeout
// ≤ 2Δ with Ping, or MaxRounds 0.
func NewStackModel(p Params, s StackParams) (*Model, error) {
	base, err := NewModel(p)
	if err != nil {
		return nil, err
	}
	cfg, layout := base.Config, base.Config.Layout
	dc := &fd.Config{N: layout.N(), Variant: s.Variant, TGossip: s.TGossip, Cleanup: s.Cleanup, Ping: s.Ping,
		PingTimeout: s.PingTimeout, MaxRounds: s.MaxRounds}
	if dc.Cleanup == 0 {
		C, err := fd.PaperCleanup(s.Variant, dc.N, fd.CleanupMargin)
		if err != nil {
			return nil, err
		}
		dc.Cleanup = uint64(C)
	}
	switch {
	case s.MaxRounds == 0:
		return nil, fmt.Errorf("replica: the stack needs bounded gossip (MaxRounds > 0)")
	case s.Ping && s.PingTimeout <= 2*uint64(s.Delta):
		return nil, fmt.Errorf("replica: ping timeout %d ticks ≤ 2Δ = %d: a live host's PONG could come too late", s.PingTimeout, 2*s.Delta)
	}
	if err := dc.Validate(); err != nil {
		return nil, err
	}
	reps, err := sm.NewAll(cfg)
	if err != nil {
		return nil, err
	}
	hosts := make([]*Host, layout.N())
	for r := range hosts {
		det, err := fd.New(core.Rank(r), dc)
		if err != nil {
			return nil, err
		}
		if hosts[r], err = NewHost(reps[r], det); err != nil {
			return nil, err
		}
	}
	start := make([][]core.Input, layout.N())
	for r := range start {
		start[r] = []core.Input{fd.Start{}}
		if i, _, _ := layout.Of(core.Rank(r)); len(cfg.Programs[i]) > 0 {
			start[r] = append(start[r], sm.Start{})
		}
	}
	name := fmt.Sprintf("replica program=%s procs=%d degree=%d layout=%v fd=%v cleanup=%d ping=%v t-gossip=%d max-rounds=%d delta=%d",
		p.Program, len(cfg.Programs), p.Degree, layout, s.Variant, dc.Cleanup, s.Ping, s.TGossip, s.MaxRounds, s.Delta)
	if p.Mutant != mutant.None {
		name += " mutant=" + string(p.Mutant)
	}
	m, err := env.New(env.Config{
		Name: name, N: layout.N(), Crashes: p.Crashes, Network: p.Network,
		Detector: env.DetectorNone, Timing: env.BoundedDelay, Delta: s.Delta,
		NewNode:   func(r core.Rank, _ int) core.Machine { return hosts[r] },
		Schedules: [][][]core.Input{start}, CrashProb: p.CrashProb,
		Properties: append(StackProperties(layout, cfg.Programs, base.Ref), env.TimingProperties()...),
		MaySend:    stackMaySend(layout, cfg.Programs),

		ForgetCrashed: p.ForgetCrashed,
		Codec: env.Codec{
			Node: func(b []byte, r core.Rank, _ int) (core.Machine, error) { return DecodeHost(b, r, cfg, dc) },
			Message: func(b []byte) (core.Message, error) {
				return DecodeWire(b, layout.Procs(), layout.N())
			},
			Value: func(b []byte) (core.Value, error) { return DecodeValue(b, layout.Procs()) },
		},
	})
	if err != nil {
		return nil, err
	}
	return &Model{Model: m, Config: cfg, Ref: base.Ref}, nil
}

// StackProperties are Properties with the quiescence ones guarded by
// detected (see NewStackModel), plus no-false-declaration, one-master and
// no-duplicate-sends.
func StackProperties(l sm.Layout, progs []sm.Program, ref *Reference) []checker.Property[*env.World] {
	ps := Properties(l, progs, ref)
	for i := range ps {
		if ps[i].Kind != checker.Quiescence {
			continue
		}
		check := ps[i].Check
		ps[i].Check = func(w *env.World) error {
			if !detected(w) {
				return nil
			}
			return check(w)
		}
		ps[i].Doc += "; on the stack, only in runs where the gossip detector declared every crash to every live host before its last round"
	}
	declared := func(w *env.World, a, b core.Rank) bool { return host(w, a).det.Declared().Has(b) }
	// The three invariants are Stable (checker.Property; persistent sets
	// need it): only a Crash changes the crashed set, and under every
	// other action a module's declared set, a replica's dead set (so a
	// master stays master: it never suspects itself) and the DATA counts
	// only grow (TestStackInvariantsStable).
	noFalse := props.StrongAccuracy(NoFalseDeclaration, "no live host is declared failed by a live host's gossip module (§5.3: no false detection)", declared)
	noFalse.Stable = true
	return append(ps,
		noFalse,
		checker.Property[*env.World]{Name: OneMaster, Kind: checker.Invariant, Stable: true,
			Doc: "no two live replicas of one logical process both see themselves as its master (§4.2: one master per logical process)",
			Check: func(w *env.World) error {
				for i := range l.Procs() {
					var masters []core.Rank
					for _, r := range l.Replicas(i).Ranks() {
						if !w.Crashed(r) && host(w, r).rep.IsMaster() {
							masters = append(masters, r)
						}
					}
					if len(masters) > 1 {
						return fmt.Errorf("logical process P%d has %d masters: %v", i, len(masters), masters)
					}
				}
				return nil
			}},
		checker.Property[*env.World]{Name: NoDuplicateSends, Kind: checker.Invariant, Stable: true,
			Doc: "in a run without crashes, the DATA sent never exceed |replicas of dst| per logical send of the programs (§4.4's count): only a second master sends more",
			Check: func(w *env.World) error {
				if w.NumCrashed() > 0 {
					return nil
				}
				var want, sent uint64
				for _, prog := range progs {
					for _, in := range prog {
						if in.Op == sm.OpSend {
							want += uint64(l.Degree(in.Peer))
						}
					}
				}
				for r := range w.N() {
					d, _ := node(w, r).Sent()
					sent += d
				}
				if sent > want {
					return fmt.Errorf("%d DATA sent, the programs' sends need %d", sent, want)
				}
				return nil
			}})
}

// detected reports whether every crashed host is declared by every live
// host's detector.
func detected(w *env.World) bool {
	for p := core.Rank(0); int(p) < w.N(); p++ {
		if w.Crashed(p) {
			continue
		}
		if !w.CrashedSet().SubsetOf(host(w, p).det.Declared()) {
			return false
		}
	}
	return true
}

func host(w *env.World, r core.Rank) *Host { return w.Node(r).(*Host) }
