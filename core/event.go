package core

import "fmt"

// EventKind says what happened to a machine.
type EventKind uint8

const (
	// EvReceive: Msg arrived from From.
	EvReceive EventKind = iota + 1
	// EvCall: the local application called in with Input.
	EvCall
	// EvSuspect: the failure detector reports that Peer is dead.
	EvSuspect
	// EvTimer: timer Timer fired.
	EvTimer
	// EvRestart: the machine has just been restarted from its stable
	// storage (Recoverable.Recover) after a crash; its first step.
	EvRestart
	// EvRecovered: the failure detector reports that Peer, which it had
	// reported dead (EvSuspect), has restarted.
	EvRecovered
)

// String returns the kind's constant name, such as "EvReceive", or
// "EventKind(n)" for a value that names no kind.
func (k EventKind) String() string {
	switch k {
	case EvReceive:
		return "EvReceive"
	case EvCall:
		return "EvCall"
	case EvSuspect:
		return "EvSuspect"
	case EvTimer:
		return "EvTimer"
	case EvRestart:
		return "EvRestart"
	case EvRecovered:
		return "EvRecovered"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is one input to Machine.Step. Only the fields of its Kind are set.
type Event struct {
	Kind  EventKind
	From  Rank    // EvReceive
	Msg   Message // EvReceive
	Input Input   // EvCall
	Peer  Rank    // EvSuspect, EvRecovered
	Timer uint64  // EvTimer
}

// Receive is the event "m arrived from from".
func Receive(from Rank, m Message) Event { return Event{Kind: EvReceive, From: from, Msg: m} }

// Call is the event "the application called in with in".
func Call(in Input) Event { return Event{Kind: EvCall, Input: in} }

// Suspect is the event "q is discovered dead".
func Suspect(q Rank) Event { return Event{Kind: EvSuspect, Peer: q} }

// Timer is the event "timer id fired".
func Timer(id uint64) Event { return Event{Kind: EvTimer, Timer: id} }

// Restart is the event "you have just restarted from stable storage".
func Restart() Event { return Event{Kind: EvRestart} }

// Recovered is the event "q, reported dead, has restarted".
func Recovered(q Rank) Event { return Event{Kind: EvRecovered, Peer: q} }

// String formats the event for a person.
func (e Event) String() string {
	switch e.Kind {
	case EvReceive:
		return fmt.Sprintf("recv %v from %v", e.Msg, e.From)
	case EvCall:
		return fmt.Sprintf("call %v", e.Input)
	case EvSuspect:
		return fmt.Sprintf("%v discovered dead", e.Peer)
	case EvTimer:
		return fmt.Sprintf("timer %d", e.Timer)
	case EvRestart:
		return "restart"
	case EvRecovered:
		return fmt.Sprintf("%v restarted", e.Peer)
	}
	return fmt.Sprintf("event(kind=%d)", e.Kind)
}
