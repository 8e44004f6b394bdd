package era

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// App is the application of the paper's Figure 3 benchmark on the
// MPIX_Comm_agree layer, wrapped around an ERA node whose Op is ULFM: a
// core.Machine whose program is
//
//	for i < Warmup: rc = agree(flag)                      // lines 5–8
//	if faulty: raise(SIGKILL)                              // lines 10–13
//	rc = agree(flag)                                       // the detecting agreement, lines 15–17
//	while rc != SUCCESS { failure_ack(); rc = agree(flag) } // stabilization, lines 19–25
//	for i < Post: agree(flag)                              // post-failure agreements, lines 27–34
//
// Agreement i is ERA agreement a = i. The program starts with the call
// AppStart (the barrier of line 4); every later call is made by the App
// itself, in the same step as the return of the previous one, from what the
// process knows: its contribution is NewContribution(Flag, known, acked),
// where known is S_p (every failure discovered: by the detector, by a
// RESULTREQUEST, or from a decision) and acked the failures acknowledged by
// the last failure_ack. A faulty rank stops after the warm-up (it waits to
// be killed: the runtime crashes it).
//
// Two ULFM rules of the implementation (§3, "processes also agree upon a set
// of dead processes") sit on top of ERA and the ULFM Op:
//
//   - A failure discovered while an agreement is in progress (called, not
//     decided) joins its Current: Current ← F(Current, (^0, {q}, all)), the
//     contribution of a failure. So the agreement in which a process fails
//     reports PROC_FAILED at every participant: the process that adopts the
//     dead rank's place in the tree cannot pass DC before discovering it,
//     and its Current then names it. This is done before the event reaches
//     the node, so that a decision made in the same step includes it.
//   - The failures of a decided value are discovered locally (given to the
//     node as core.Suspect events): a failure agreed on is known by every
//     survivor, so failure_ack acknowledges it and the stabilization loop
//     ends.
//
// The state (the node, the phase, the acknowledged set and one record per
// agreement called) is a deterministic function of the events, and App
// follows the core.Machine contract.
type App struct {
	cfg   *AppConfig
	node  *Node
	phase Phase
	acked core.RankSet // replaced, never changed in place
	calls []AppCall    // calls[a] is agreement a
}

// AppConfig is the benchmark program of one process.
type AppConfig struct {
	// Warmup is the number of agreements before the failures (WARMUP).
	Warmup int
	// Post is the number of agreements after the stabilization loop (the
	// synchronising agreement of line 27 and the NBTEST ones).
	Post int
	// Faulty: this rank is killed after the warm-up (faults[rank]).
	Faulty bool
	// Flag is the integer contributed to every agreement.
	Flag uint64
}

// Phase is where the program is.
type Phase uint8

const (
	// PhaseIdle: AppStart not called yet.
	PhaseIdle Phase = iota
	// PhaseWarmup: in the warm-up agreements.
	PhaseWarmup
	// PhaseKilled: a faulty rank after its warm-up, waiting to be killed.
	PhaseKilled
	// PhaseDetect: in the first agreement after the failures.
	PhaseDetect
	// PhaseStabilize: acknowledging and agreeing until success.
	PhaseStabilize
	// PhasePost: in the post-failure agreements.
	PhasePost
	// PhaseDone: the program is over.
	PhaseDone
)

var phaseNames = [...]string{"idle", "warmup", "killed", "detect", "stabilize", "post", "done"}

// String names the phase: "idle", "warmup", "killed", "detect",
// "stabilize", "post" or "done".
func (ph Phase) String() string {
	if int(ph) < len(phaseNames) {
		return phaseNames[ph]
	}
	return fmt.Sprintf("phase(%d)", uint8(ph))
}

// AppCall is one agreement the App called.
type AppCall struct {
	Phase        Phase        // the phase the call belongs to
	Contribution Contribution // what the process contributed
	Returned     bool         // the agreement returned
	Value        Contribution // the value returned (when Returned)
}

// Err reports PROC_FAILED for a returned call.
func (c AppCall) Err() bool { return c.Returned && c.Value.Err() }

// AppStart is the App's only input: the program starts (a core.Input).
type AppStart struct{}

// AppendBinary appends nothing: AppStart has no field.
func (AppStart) AppendBinary(b []byte) []byte { return b }

// String is "AppStart".
func (AppStart) String() string { return "AppStart" }

// NewApp returns process p of a communicator whose ERA configuration is cfg
// (its Op must be ULFM) running the program prog. prog is shared by the
// clones and must not change afterwards.
func NewApp(p core.Rank, cfg Config, prog *AppConfig) (*App, error) {
	if cfg.Op != ULFM {
		return nil, fmt.Errorf("era: App needs Op ULFM, not %v", cfg.Op)
	}
	if prog == nil || prog.Warmup < 0 || prog.Post < 0 {
		return nil, fmt.Errorf("era: App program %+v: need Warmup ≥ 0 and Post ≥ 0", prog)
	}
	n, err := New(p, cfg)
	if err != nil {
		return nil, err
	}
	return &App{cfg: prog, node: n}, nil
}

var _ core.Machine = (*App)(nil)

// Node is the ERA node (shared: read it, do not step it).
func (x *App) Node() *Node { return x.node }

// Phase is where the program is.
func (x *App) Phase() Phase { return x.phase }

// Acked is a copy of the acknowledged failures.
func (x *App) Acked() core.RankSet { return x.acked.Clone() }

// Calls lists the agreements called, a = 0, 1, … (shared: do not modify).
func (x *App) Calls() []AppCall { return x.calls[:len(x.calls):len(x.calls)] }

// Contribution is what the process contributed to agreement a, if it
// called it.
func (x *App) Contribution(a uint64) (Contribution, bool) {
	if a < uint64(len(x.calls)) {
		return x.calls[a].Contribution, true
	}
	return Contribution{}, false
}

// Step applies one event: AppStart, or an event for the node (a message, a
// failure discovery). It runs the program forward: every return of the
// agreement in progress makes the next call in the same step.
func (x *App) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		if _, ok := ev.Input.(AppStart); !ok {
			return out, fmt.Errorf("era: app %v: input %T is not an era.AppStart", x.node.p, ev.Input)
		}
		if x.phase != PhaseIdle {
			return out, fmt.Errorf("era: app %v: AppStart called twice", x.node.p)
		}
		x.phase = PhaseWarmup
		if x.cfg.Warmup == 0 {
			x.phase = x.afterWarmup()
		}
		start := len(out)
		return x.progress(x.call(out), start), nil
	case core.EvReceive, core.EvSuspect:
		if err := x.node.check(ev); err != nil {
			return out, err
		}
	default:
		return out, fmt.Errorf("era: app %v: unexpected event %v", x.node.p, ev)
	}
	// The event may mark ranks dead: S_p ∪ {q} for a discovery, and the
	// ranks below q and p's ancestors above q for a RESULTREQUEST from q
	// (Rule Recv(RESULTREQUEST), requestMarks).
	if ev.Kind == core.EvSuspect {
		x.amend(func(s *core.RankSet) { s.Add(ev.Peer) })
	} else if m, ok := ev.Msg.(ResultRequest); ok {
		if !x.node.marksNoElders() { // mutant hook (mutants.go)
			marks := x.node.requestMarks(ev.From, m.A)
			x.amend(func(s *core.RankSet) { *s = s.Union(marks) })
		}
	}
	start := len(out)
	out, _ = x.node.Step(ev, out) // checked above: cannot fail
	return x.progress(out, start), nil
}

// amend adds the ranks that add puts in S_p (plus S_p) to the Failed set of
// every agreement in progress: called, undecided and contributed.
func (x *App) amend(add func(*core.RankSet)) {
	var dead core.RankSet
	computed := false
	for i := range x.node.ags {
		g := &x.node.ags[i]
		if !g.called() || g.result != nil || g.status == NotContributed {
			continue
		}
		if !computed {
			dead = x.node.dead.Clone()
			add(&dead)
			computed = true
		}
		c, ok := g.current.(Contribution)
		if !ok || dead.SubsetOf(c.Failed) {
			continue
		}
		c.Failed = c.Failed.Union(dead)
		g.current = c
	}
}

// progress handles the returns among out[start:]: each return of the
// agreement in progress records it, discovers the failures agreed on and
// makes the next call, whose effects are appended to out and scanned in
// turn by the same loop.
func (x *App) progress(out []core.Effect, start int) []core.Effect {
	for i := start; i < len(out); i++ {
		e := out[i]
		if e.Kind != core.EffReturn || len(x.calls) == 0 {
			continue
		}
		a := uint64(len(x.calls) - 1)
		c := &x.calls[a]
		if e.Instance != a || c.Returned {
			continue
		}
		v, _ := e.Value.(Contribution) // Op is ULFM
		c.Returned, c.Value = true, v
		v.Failed.Each(func(q core.Rank) {
			if q != x.node.p && q.Valid(x.node.cfg.N) && !x.node.dead.Has(q) {
				out, _ = x.node.Step(core.Suspect(q), out)
			}
		})
		x.phase = x.next(c.Phase, v.Err())
		out = x.call(out)
	}
	return out
}

// afterWarmup is the phase that follows the warm-up.
func (x *App) afterWarmup() Phase {
	if x.cfg.Faulty {
		return PhaseKilled
	}
	return PhaseDetect
}

// next is the phase after an agreement of phase ph returned with error err.
func (x *App) next(ph Phase, err bool) Phase {
	switch ph {
	case PhaseWarmup:
		if len(x.calls) < x.cfg.Warmup {
			return PhaseWarmup
		}
		return x.afterWarmup()
	case PhaseDetect, PhaseStabilize:
		if err {
			return PhaseStabilize
		}
		if x.cfg.Post == 0 {
			return PhaseDone
		}
		return PhasePost
	case PhasePost:
		post := 0
		for _, c := range x.calls {
			if c.Phase == PhasePost {
				post++
			}
		}
		if post < x.cfg.Post {
			return PhasePost
		}
	}
	return PhaseDone
}

// call makes the call of the current phase, if it has one: failure_ack
// first in the stabilization phase, then agree(flag). The caller scans the
// effects for its return (progress).
func (x *App) call(out []core.Effect) []core.Effect {
	switch x.phase {
	case PhaseWarmup, PhaseDetect, PhaseStabilize, PhasePost:
	default:
		return out
	}
	if x.phase == PhaseStabilize {
		x.acked = x.node.dead.Clone() // MPIX_Comm_failure_ack
	}
	a := uint64(len(x.calls))
	v := NewContribution(x.cfg.Flag, x.node.dead, x.acked)
	x.calls = append(x.calls, AppCall{Phase: x.phase, Contribution: v})
	out, _ = x.node.Step(core.Call(Contribute{A: a, V: v}), out) // a is new and v valid: cannot fail
	return out
}

// Clone returns a deep copy.
func (x *App) Clone() core.Machine {
	c := *x
	c.node = x.node.clone()
	c.calls = append(make([]AppCall, 0, len(x.calls)+1), x.calls...)
	return &c
}

// AppendBinary appends the phase, the acknowledged set, the calls (phase,
// contribution, whether returned and the value returned) and the node's
// encoding. The program is not encoded.
func (x *App) AppendBinary(b []byte) []byte {
	b = append(b, byte(x.phase))
	b = x.acked.AppendBinary(b)
	b = core.AppendUint(b, uint64(len(x.calls)))
	for _, c := range x.calls {
		b = append(b, byte(c.Phase))
		b = c.Contribution.AppendBinary(b)
		b = core.AppendBool(b, c.Returned)
		if c.Returned {
			b = c.Value.AppendBinary(b)
		}
	}
	return x.node.AppendBinary(b)
}

// String summarises the App on one line, e.g.
// "app p1 stabilize acked={p0} calls=5 err=3,4 | era p1 …".
func (x *App) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "app %v %v acked=%v calls=%d err=", x.node.p, x.phase, x.acked, len(x.calls))
	sep := ""
	for a, c := range x.calls {
		if c.Err() {
			fmt.Fprintf(&b, "%s%d", sep, a)
			sep = ","
		}
	}
	b.WriteString(" | ")
	b.WriteString(x.node.String())
	return b.String()
}
