package env

import (
	"fmt"
	"math"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// Config describes a model: the protocol (NewNode, Schedules, Properties)
// and the environment around it.
type Config struct {
	// Name of the protocol, first word of Model.Name ("env" if empty).
	Name string
	// N is the number of processes, ranks 0 … N-1; N ≥ 1.
	N int
	// Crashes is the crash budget F, 0 ≤ Crashes ≤ N (Fail ranks extra).
	Crashes int
	// Network is the channel discipline: Unordered (default) or FIFO.
	Network Network
	// Loss says which messages may be lost: LossNone (default),
	// LossOnCrash (messages in flight from a crashed sender) or LossAny
	// (any message in flight, at most Losses times).
	Loss Loss
	// Losses is LossAny's budget L ≥ 1: at most L Lose actions in a run
	// (lossdup.go). It must be 0 under the other Loss modes.
	Losses int
	// Duplicates is the duplication budget D ≥ 0: at most D Duplicate
	// actions in a run, each adding one copy of a message in flight
	// (lossdup.go); 0, the default, duplicates nothing.
	Duplicates int
	// Faults is the failure model: CrashStop (default) or CrashRecovery.
	Faults Faults
	// Recoveries is CrashRecovery's budget R ≥ 0: at most R Recover
	// actions in a run, each restarting a crashed process from its stable
	// storage (recovery.go). It must be 0 under CrashStop.
	Recoveries int
	// Detector is the failure detector: DetectorPerfect (default, every
	// crash reported by a Detect action), DetectorNone or DetectorLocal
	// (a hosted rank's crash reported to its host only; needs Hosts).
	Detector Detector
	// Hosts places ranks on hosts (nil: no placement, every rank on its
	// own): Hosts[r] is the rank that hosts r, such as the runtime daemon
	// of an application process, or r itself for a rank no one hosts. A
	// host is not itself hosted. A crash of a host crashes, in the same
	// step, every live rank it hosts (a node failure kills its processes),
	// and spends one crash of the budget, as the crash of a single hosted
	// rank does. It does not combine with Fail. A hosted survivor never
	// crashes alone but dies with its host.
	Hosts []core.Rank
	// Timing is Asynchronous (default), LockStepRounds (timers wait for
	// the next round, begun by a Tick action) or BoundedDelay (a global
	// clock in ticks, message delays in [1, Delta] ticks); see Timing.
	Timing Timing
	// Delta is BoundedDelay's delay bound Δ in ticks, 1 ≤ Δ ≤ MaxDelta: a
	// message sent at tick t is delivered at a tick in [t+1, t+Δ]. It must
	// be 0 under the other timings.
	Delta int
	// Blocking: a process makes its next call only after the previous one
	// returned (EffReturn).
	Blocking bool
	// NewNode builds the initial state of process p of n. Required; it must
	// not return nil. It is called once per rank, by New.
	NewNode func(p core.Rank, n int) core.Machine
	// Schedules lists alternative input vectors: Schedules[k][p] is the
	// ordered list of calls process p makes in alternative k. Each
	// alternative has exactly N entries (nil: no call); inputs are non-nil.
	// Init returns one initial state per alternative, in order; no
	// alternative at all means one initial state without calls.
	Schedules [][][]core.Input
	// Fail lists distinct ranks that must crash in every run, outside the
	// budget: at any step in exhaustive search (a state where one is alive is
	// not quiescent), at a random point in random walks (Sample).
	Fail []core.Rank
	// CrashProb, in [0, 1], is the probability that a Sample step is a
	// crash when a crash is enabled; Fail ranks are crashed with it per step
	// too (with 1/N per step if CrashProb is 0).
	CrashProb float64
	// Survivors lists ranks that never crash (not even within the budget),
	// such as the root of a broadcast, which is assumed alive (Corrected
	// Trees §2.1). They must not be Fail ranks. With Hosts, a hosted
	// survivor still dies with its host.
	Survivors []core.Rank
	// Wakeups are timer ids of a synchronized clock, in order: once nothing
	// but budget crashes is enabled, a Clock action arms the next one at
	// every live process (each then fires as its own Fire action). Time is
	// abstract, so "the clock is set late enough that everything before it
	// has settled" is the only ordering it adds. Ids fit in int32.
	Wakeups []uint64
	// CrashBeforeWakeup enables budget crashes only before the first Clock
	// action ("failures happen before the synchronized phase"). Fail ranks
	// are not affected.
	CrashBeforeWakeup bool
	// Properties are returned by Model.Properties. Names must be non-empty
	// and distinct; Invariant, Quiescence and Eventually need Check,
	// Transition needs CheckStep.
	Properties []checker.Property[*World]
	// Params are free-form parameters recorded in traces (Model.Params).
	Params map[string]string
	// Codec decodes the protocol's states, messages and values, so that
	// worlds can be decoded (Model.Decode; see decode.go). Optional.
	Codec Codec
	// MaySend is the protocol's "may still send to" relation, used by
	// partial-order reduction in depth-first search (persistent.go):
	// MaySend(w, p, r), for a live process p of world w, must be true
	// whenever some step of p in some run from w, on any sequence of events
	// (deliveries, the calls left in its schedule, timers, suspicions), may
	// send a message to r, except that messages harmless to r may be left
	// out when r cannot crash (World.MayCrash(r) false), or when r may
	// crash, the model forgets crashed processes (ForgetCrashed) and every
	// node state r' below has the Forget of r's node in w (Forgetter:
	// equal encodings). A message is
	// harmless to r in w when r's node, in its state in w, absorbs it
	// (Absorber; absorbing is for good, so r absorbs it whenever it
	// arrives), or when it is quiet at r: for every node state r' that r's
	// node reaches from its state in w by receiving harmless messages (any
	// number, any order), receiving it in r' emits no effect, and it
	// commutes with every event of r enabled in w (r's armed timers, the
	// messages in r's inbox, r's next call, its pending detections): from
	// r', the event then the message, or the message then the event, end in
	// the same node state (encoding) with the same effects of the event and
	// none of the message; and every transition property the model selects
	// passes the quiet delivery's step and gives a step of r the same
	// verdict whatever harmless messages r received before it (persistent.go,
	// "Quiet deliveries"). It may read w (p's and r's nodes,
	// w.PendingCalls(p), timers) and must be deterministic. Optional: nil
	// means every process may send to every process (sound, and no
	// reduction from it).
	MaySend func(w *World, p, r core.Rank) bool
	// ForgetCrashed replaces, at the crash step, the node of every rank
	// that crashes by its Forget (Forgetter: what the properties read of
	// a crashed process, the rest reset) and clears its detections
	// (World.Detected), a sound reduction of the worlds (forget.go). Every
	// node must be a Forgetter, and no property may read the detections
	// of a crashed process. Off by default.
	ForgetCrashed bool
	// DropAbsorbed removes a message its live receiver absorbs (Absorber)
	// in the step that makes it absorbed, at its send or at the receiver's
	// step, instead of leaving its no-op delivery to the search: a sound
	// reduction of the worlds (absorb_drop.go). No property may read the
	// in-flight messages a live receiver absorbs. Not with BoundedDelay.
	// Off by default.
	DropAbsorbed bool
}

func (c *Config) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	if c.N < 1 || c.N > math.MaxInt32 {
		return bad("N = %d, want 1 ≤ N ≤ %d", c.N, math.MaxInt32)
	}
	if c.Crashes < 0 || c.Crashes > c.N {
		return bad("Crashes = %d, want 0 ≤ Crashes ≤ N = %d", c.Crashes, c.N)
	}
	if c.Network != Unordered && c.Network != FIFO {
		return bad("unknown Network %d", c.Network)
	}
	if c.Loss != LossNone && c.Loss != LossOnCrash && c.Loss != LossAny {
		return bad("unknown Loss %d", c.Loss)
	}
	if c.Faults != CrashStop && c.Faults != CrashRecovery {
		return bad("unknown Faults %d", c.Faults)
	}
	if err := c.validateFaults(); err != nil {
		return bad("%v", err)
	}
	if c.Detector != DetectorPerfect && c.Detector != DetectorNone && c.Detector != DetectorLocal {
		return bad("unknown Detector %d", c.Detector)
	}
	if err := c.validateHosts(); err != nil {
		return bad("%v", err)
	}
	if c.Timing != Asynchronous && c.Timing != LockStepRounds && c.Timing != BoundedDelay {
		return bad("unknown Timing %d", c.Timing)
	}
	if err := c.validateDelay(); err != nil {
		return bad("%v", err)
	}
	if c.NewNode == nil {
		return bad("NewNode is nil")
	}
	for k, alt := range c.Schedules {
		if len(alt) != c.N {
			return bad("Schedules[%d] has %d processes, want N = %d", k, len(alt), c.N)
		}
		for p, calls := range alt {
			for i, in := range calls {
				if in == nil {
					return bad("Schedules[%d][%d][%d] is nil", k, p, i)
				}
			}
		}
	}
	seen := make(map[core.Rank]bool, len(c.Fail))
	for _, r := range c.Fail {
		if !r.Valid(c.N) {
			return bad("Fail rank %d out of range 0..%d", r, c.N-1)
		}
		if seen[r] {
			return bad("Fail rank %v listed twice", r)
		}
		seen[r] = true
	}
	for _, r := range c.Survivors {
		if !r.Valid(c.N) {
			return bad("Survivors rank %d out of range 0..%d", r, c.N-1)
		}
		if seen[r] {
			return bad("Survivors rank %v is also a Fail rank", r)
		}
	}
	for _, id := range c.Wakeups {
		if id > math.MaxInt32 {
			return bad("wakeup timer %d over %d", id, math.MaxInt32)
		}
	}
	if !(c.CrashProb >= 0 && c.CrashProb <= 1) {
		return bad("CrashProb = %v, want 0 ≤ CrashProb ≤ 1", c.CrashProb)
	}
	names := make(map[string]bool, len(c.Properties))
	for i, p := range c.Properties {
		switch {
		case p.Name == "":
			return bad("Properties[%d] has no name", i)
		case names[p.Name]:
			return bad("property %q listed twice", p.Name)
		case (p.Kind == checker.Invariant || p.Kind == checker.Quiescence || p.Kind == checker.Eventually) && p.Check == nil:
			return bad("%s property %q has no Check", p.Kind, p.Name)
		case p.Kind == checker.Transition && p.CheckStep == nil:
			return bad("transition property %q has no CheckStep", p.Name)
		case p.Kind < checker.Invariant || p.Kind > checker.Eventually:
			return bad("property %q has unknown kind %d", p.Name, p.Kind)
		}
		names[p.Name] = true
	}
	return nil
}
