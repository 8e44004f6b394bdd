package core

import "fmt"

// EffectKind says what a step asks its runtime to do or observe.
type EffectKind uint8

const (
	// EffSend: send Msg to To.
	EffSend EffectKind = iota + 1
	// EffDecide: the machine decided Value for instance Instance (an
	// agreement identifier, a broadcast, a log slot).
	EffDecide
	// EffReturn: the pending call for Instance returns Value to the caller.
	// The node stays in the protocol: the runtime keeps delivering its
	// messages, failure reports and timers until it shuts the whole group
	// down (see "Returning is not leaving" in the package documentation).
	EffReturn
	// EffDeliver: Value is delivered to the application for Instance.
	EffDeliver
	// EffSuspect: the machine now suspects Peer (detectors).
	EffSuspect
	// EffSetTimer: arm timer Timer to fire after Delay time units.
	EffSetTimer
)

// String returns the kind's constant name, such as "EffSend", or
// "EffectKind(n)" for a value that names no kind.
func (k EffectKind) String() string {
	switch k {
	case EffSend:
		return "EffSend"
	case EffDecide:
		return "EffDecide"
	case EffReturn:
		return "EffReturn"
	case EffDeliver:
		return "EffDeliver"
	case EffSuspect:
		return "EffSuspect"
	case EffSetTimer:
		return "EffSetTimer"
	}
	return fmt.Sprintf("EffectKind(%d)", uint8(k))
}

// Effect is one output of Machine.Step. Only the fields of its Kind are set.
type Effect struct {
	Kind     EffectKind
	To       Rank    // EffSend
	Msg      Message // EffSend
	Instance uint64  // EffDecide, EffReturn, EffDeliver
	Value    Value   // EffDecide, EffReturn, EffDeliver
	Peer     Rank    // EffSuspect
	Timer    uint64  // EffSetTimer
	Delay    uint64  // EffSetTimer, in the protocol's time unit
}

// Send is the effect "send m to to".
func Send(to Rank, m Message) Effect { return Effect{Kind: EffSend, To: to, Msg: m} }

// Decide is the effect "decided v for instance a".
func Decide(a uint64, v Value) Effect { return Effect{Kind: EffDecide, Instance: a, Value: v} }

// Return is the effect "the call for instance a returns v".
func Return(a uint64, v Value) Effect { return Effect{Kind: EffReturn, Instance: a, Value: v} }

// Deliver is the effect "v is delivered to the application for instance a".
func Deliver(a uint64, v Value) Effect { return Effect{Kind: EffDeliver, Instance: a, Value: v} }

// String formats the effect for a person.
func (e Effect) String() string {
	switch e.Kind {
	case EffSend:
		return fmt.Sprintf("send %v to %v", e.Msg, e.To)
	case EffDecide:
		return fmt.Sprintf("decide a=%d v=%v", e.Instance, e.Value)
	case EffReturn:
		return fmt.Sprintf("return a=%d v=%v", e.Instance, e.Value)
	case EffDeliver:
		return fmt.Sprintf("deliver a=%d v=%v", e.Instance, e.Value)
	case EffSuspect:
		return fmt.Sprintf("suspect %v", e.Peer)
	case EffSetTimer:
		return fmt.Sprintf("set timer %d after %d", e.Timer, e.Delay)
	}
	return fmt.Sprintf("effect(kind=%d)", e.Kind)
}
