package env

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// World is one global state: every node's state, the messages in flight,
// the crashed set, the detector's progress, the calls made and each
// process's history, plus (not encoded) the last step. It is immutable:
// Apply returns a new World sharing what did not change. Its read methods
// take ranks in 0 … N-1 and panic otherwise, like slice indexing.
type World struct {
	m       *Model
	blk     block // the block w lives in, when Apply built it (recycle.go); else nil
	alt     int   // schedule alternative
	root    *tnode
	crashed core.RankSet
	ncrash  int   // crashed.Len()
	nfail   int   // crashed Fail ranks (outside the budget)
	spent   int   // budget crashes taken (ncrash - nfail unless Config.Hosts groups them)
	clock   int   // Clock actions taken (Config.Wakeups armed so far)
	now     int64 // BoundedDelay: Tick actions taken (not encoded; see Now)
	depth   int
	last    checker.Action
	actor   core.Rank
	effects []core.Effect

	faults faultState // restarts, losses and duplicates spent (recovery.go, lossdup.go)
}

// Envelope is one message in flight.
type Envelope struct {
	From, To core.Rank
	Msg      core.Message
}

func (w *World) proc(p core.Rank) *proc { return get(w.root, w.m.height, int(p)) }

// N is the number of processes.
func (w *World) N() int { return w.m.cfg.N }

// Schedule is the index of the schedule alternative the world started from
// (Init order).
func (w *World) Schedule() int { return w.alt }

// Node is p's state (its last one if p crashed). It is shared: read it, or
// Clone it before stepping it.
func (w *World) Node(p core.Rank) core.Machine { return w.proc(p).node }

// Crashed reports whether p has crashed.
func (w *World) Crashed(p core.Rank) bool { return w.crashed.Has(p) }

// CrashedSet returns a copy of the set of crashed processes.
func (w *World) CrashedSet() core.RankSet { return w.crashed.Clone() }

// NumCrashed is the number of crashed processes, Fail ranks included.
func (w *World) NumCrashed() int { return w.ncrash }

// Calls is p's whole call schedule (shared: do not modify).
func (w *World) Calls(p core.Rank) []core.Input {
	return slices.Clip(w.m.sched[w.alt][p])
}

// CallsMade lists the calls p has made, in order (shared: do not modify).
func (w *World) CallsMade(p core.Rank) []core.Input {
	return slices.Clip(w.m.sched[w.alt][p][:w.proc(p).made])
}

// PendingCalls lists the calls p has not made yet, in order, whether or not
// p is alive or may make them now (shared: do not modify).
func (w *World) PendingCalls(p core.Rank) []core.Input {
	return slices.Clip(w.m.sched[w.alt][p][w.proc(p).made:])
}

// Awaiting reports whether, under Blocking, p's last call has not returned.
// It is always false without Blocking.
func (w *World) Awaiting(p core.Rank) bool { return w.proc(p).awaiting }

// InFlight lists the messages in flight, one Envelope per copy, in canonical
// order: by receiver, then sender, then (Unordered) encoding or (FIFO) queue
// order. O(messages + N).
func (w *World) InFlight() []Envelope {
	var out []Envelope
	each(w.root, w.m.height, 0, func(i int, p *proc) bool {
		for _, e := range p.inbox {
			for range e.n {
				out = append(out, Envelope{From: e.from, To: core.Rank(i), Msg: e.msg})
			}
		}
		return true
	})
	return out
}

// Detected reports whether p has been told that q is dead (false for a
// crashed p under Config.ForgetCrashed).
func (w *World) Detected(p, q core.Rank) bool { return w.proc(p).detected.Has(q) }

// History is p's decisions, returns and deliveries, in the order p emitted
// them (shared: do not modify).
func (w *World) History(p core.Rank) []Record { return slices.Clip(w.proc(p).hist) }

// LastActor is the process that took the last step: the receiver of a
// Deliver, the process of a Crash, Detect or Call (of a Recover, the
// restarted process); NoRank for a Lose or Duplicate and in an initial
// state.
func (w *World) LastActor() core.Rank { return w.actor }

// LastAction is the action that produced w (the zero Action in an initial
// state, where Depth is 0).
func (w *World) LastAction() checker.Action { return w.last }

// LastEffects are the effects of the last step, in the order the node
// emitted them (nil after a Crash or Lose; shared: do not modify).
func (w *World) LastEffects() []core.Effect { return slices.Clip(w.effects) }

// Timers lists p's armed timers, ascending (shared: do not modify).
func (w *World) Timers(p core.Rank) []uint64 { return slices.Clip(w.proc(p).timers) }

// Clocks is the number of Clock actions taken: how many Config.Wakeups
// have been armed.
func (w *World) Clocks() int { return w.clock }

// Depth is the number of actions from the initial state.
func (w *World) Depth() int { return w.depth }

// String summarises the world for a person, such as
// "depth=3 crashed={p2} in-flight=4".
func (w *World) String() string {
	msgs := 0
	each(w.root, w.m.height, 0, func(_ int, p *proc) bool {
		for _, e := range p.inbox {
			msgs += int(e.n)
		}
		return true
	})
	return fmt.Sprintf("depth=%d crashed=%v in-flight=%d", w.depth, w.crashed, msgs)
}

// Message returns the message a Deliver, Lose or Duplicate action a names in w (the
// a.I-th message from a.Q in a.P's inbox), and false when a is not such an
// action enabled in w.
func (w *World) Message(a checker.Action) (core.Message, bool) {
	p, q := core.Rank(a.P), core.Rank(a.Q)
	if a.Kind != Deliver && a.Kind != Lose && a.Kind != Duplicate || !p.Valid(w.m.cfg.N) || !q.Valid(w.m.cfg.N) {
		return nil, false
	}
	in := w.proc(p).inbox
	i, ok := w.m.entryOf(in, a)
	if !ok {
		return nil, false
	}
	return in[i].msg, true
}
