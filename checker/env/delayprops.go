package env

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// The timing rules of BoundedDelay, checked as properties of every
// transition rather than assumed: a bounded-delay model lists
// TimingProperties beside its own, as ERA lists props.DetectorComplete.
//
// Each is computed from the transition alone (the two worlds and the
// action), never from the code that enables actions (open, tickDueDelay,
// the due timers of Actions) or sets deadlines (sendDeadline,
// timerOffset, tickDelay). A message's age is its send tick's distance
// from now, Δ minus its deadline offset; a timer's offset is its
// deadline's distance from now. The properties check how every step moves
// them: a send puts its messages in flight at age 0 and an arm sets its
// timer's offset to its delay (Delay 0 read as 1), a Tick adds one to every
// age and takes one from every offset, and no other step touches a
// message or timer it does not take, fire or arm; and they check the
// windows themselves: a message is delivered (or lost) at an age in
// [1, Δ], a Tick never leaves a message of age Δ in flight or a timer due
// now unfired, and a timer fires at offset 0. By induction along any run,
// then, a message sent at tick t is delivered in [t+1, t+Δ] and a timer
// armed at tick t with Delay d fires at tick t+max(d, 1), exactly.

// Names of the timing properties.
const (
	PropDeliveryWindow = "delivery-window"
	PropTimerDeadline  = "timer-deadline"
)

// TimingProperties are DeliveryWindow and TimerDeadline under their
// standard names, for a model under BoundedDelay.
func TimingProperties() []checker.Property[*World] {
	return []checker.Property[*World]{
		DeliveryWindow(PropDeliveryWindow, "no message is delivered (or lost) before tick t+1 or after tick t+Δ, t its send tick (the environment's bounded delay, checked on every step)"),
		TimerDeadline(PropTimerDeadline, "no timer fires before its deadline or after it: armed at tick t with delay d, it fires at tick t+max(d,1) (the environment's timers, checked on every step)"),
	}
}

var errNotTimed = errors.New("the timing properties need BoundedDelay timing")

// DeliveryWindow is "every message sent at tick t is delivered, or lost,
// at a tick in [t+1, t+Δ]" (Δ = Config.Delta, in ticks), a transition
// property of the environment under BoundedDelay (it fails every step
// under another timing). It fails a Deliver or Lose of a message whose age
// is outside [1, Δ], a Tick with a message of age Δ in flight (its
// deadline passes undelivered) or that does not add exactly one tick to
// the age of every message in flight and change nothing else in flight,
// and a step whose sends to a live process do not each put one message of
// age 0 from the sender in that process's inbox.
//
// Reads: checker.ReadsStep. Besides the step's footprint it reads, of a
// Deliver(P, Q, I), the entry it takes (from Q, which no action
// independent of it changes: the sender rule of Independent), and of a
// step of P that sends to q, the messages from P in q's inbox and whether
// q crashed. Among the actions independent of that step only a Crash of q
// changes those, and after it the sends to q are dropped and pass: such a
// step can fail only where the same step from before the crash fails too,
// which is the transition the reduction keeps.
func DeliveryWindow(name, doc string) checker.Property[*World] {
	return checker.Property[*World]{Name: name, Kind: checker.Transition, Doc: doc, Reads: checker.ReadsStep,
		CheckStep: func(prev *World, a checker.Action, next *World) error {
			if prev.m.cfg.Timing != BoundedDelay {
				return errNotTimed
			}
			delta := int32(prev.m.cfg.Delta)
			switch a.Kind {
			case Tick:
				return tickedMessages(prev, next, delta)
			case Deliver, Lose:
				p, q := core.Rank(a.P), core.Rank(a.Q)
				if !p.Valid(prev.N()) {
					return nil
				}
				in := prev.proc(p).inbox
				i, ok := findEntry(in, prev.m.cfg.Network, q, a.I)
				if !ok {
					return nil
				}
				if age := delta - in[i].d; age < 1 || age > delta {
					verb := "delivered to"
					if a.Kind == Lose {
						verb = "lost on its way to"
					}
					return fmt.Errorf("message %v from %v %s %v at tick t+%d, outside its window [t+1, t+%d] (t: its send tick)", in[i].msg, q, verb, p, age, delta)
				}
			}
			return sentNow(prev, next, delta)
		}}
}

// tickedMessages checks a Tick: every message in flight is one tick older,
// none was at its deadline, and nothing else in flight changed.
func tickedMessages(prev, next *World, delta int32) error {
	for r := range core.Rank(prev.N()) {
		before, after := prev.proc(r).inbox, next.proc(r).inbox
		for i, e := range before {
			if e.d <= 0 {
				return fmt.Errorf("a Tick passed tick t+%d with message %v from %v to %v still in flight (t: its send tick; due by t+%d)", delta-e.d, e.msg, e.from, r, delta)
			}
			if i >= len(after) || after[i].from != e.from || after[i].key != e.key || after[i].n != e.n {
				return fmt.Errorf("a Tick changed the messages in flight to %v", r)
			}
			if after[i].d != e.d-1 {
				return fmt.Errorf("a Tick took message %v from %v to %v from age %d to age %d, want %d", e.msg, e.from, r, delta-e.d, delta-after[i].d, delta-e.d+1)
			}
		}
		if len(after) != len(before) {
			return fmt.Errorf("a Tick changed the messages in flight to %v", r)
		}
	}
	return nil
}

// sentNow checks the sends of the step's actor: for each live receiver q,
// the copies of age 0 from the actor in q's inbox grew by the number of
// messages the step sent to q.
func sentNow(prev, next *World, delta int32) error {
	p := next.LastActor()
	if p == core.NoRank || !p.Valid(next.N()) {
		return nil
	}
	effs := next.LastEffects()
	for i, e := range effs {
		if e.Kind != core.EffSend || !e.To.Valid(next.N()) || next.Crashed(e.To) {
			continue
		}
		if slices.ContainsFunc(effs[:i], func(f core.Effect) bool { return f.Kind == core.EffSend && f.To == e.To }) {
			continue
		}
		sent := 0
		for _, f := range effs[i:] {
			if f.Kind == core.EffSend && f.To == e.To {
				sent++
			}
		}
		fresh := func(w *World) int {
			in := w.proc(e.To).inbox
			lo, hi := senderRange(in, p)
			k := 0
			for _, x := range in[lo:hi] {
				if x.d == delta {
					k += int(x.n)
				}
			}
			return k
		}
		if got := fresh(next) - fresh(prev); got != sent {
			return fmt.Errorf("%v sent %d message(s) to %v in this step, but %d more of age 0 (sent this tick) from %v are in flight to it", p, sent, e.To, got, p)
		}
	}
	return nil
}

// TimerDeadline is "a timer armed at tick t with delay d (ticks) fires at
// tick t+max(d, 1), neither before nor after", a transition property of
// the environment under BoundedDelay (it fails every step under another
// timing). It fails a Fire of a timer whose deadline is not now, a Tick
// with a timer due now (its deadline passes unfired) or that does not
// bring every armed timer one tick closer and change nothing else, and a
// step of p after which p's timers are not those before it, less the one
// fired, with each timer the step armed (EffSetTimer, the last one per id)
// due in max(d, 1) ticks.
//
// Reads: checker.ReadsStep: the action, the actor's timers before and
// after and the step's effects; a Tick reads every process's (a Tick is
// dependent with every action).
func TimerDeadline(name, doc string) checker.Property[*World] {
	return checker.Property[*World]{Name: name, Kind: checker.Transition, Doc: doc, Reads: checker.ReadsStep,
		CheckStep: func(prev *World, a checker.Action, next *World) error {
			if prev.m.cfg.Timing != BoundedDelay {
				return errNotTimed
			}
			switch a.Kind {
			case Tick:
				return tickedTimers(prev, next)
			case Crash, Lose, Clock:
				return nil
			}
			p := core.Rank(a.P)
			if !p.Valid(prev.N()) {
				return nil
			}
			ids, due := prev.proc(p).timers, prev.proc(p).due
			want := map[uint64]int64{}
			for j, id := range ids {
				want[id] = int64(due[j])
			}
			if a.Kind == Fire {
				id := uint64(a.I)
				off, armed := want[id]
				if armed && off != 0 {
					return fmt.Errorf("%v's timer %d fired %d ticks before its deadline", p, id, off)
				}
				delete(want, id)
			}
			for _, e := range next.LastEffects() {
				if e.Kind == core.EffSetTimer {
					want[e.Timer] = int64(max(e.Delay, 1))
				}
			}
			ids, due = next.proc(p).timers, next.proc(p).due
			for j, id := range ids {
				off, ok := want[id]
				switch {
				case !ok:
					return fmt.Errorf("%v's timer %d is armed after a step that neither armed it nor found it armed", p, id)
				case off != int64(due[j]):
					return fmt.Errorf("%v's timer %d is due in %d ticks after the step, want %d", p, id, due[j], off)
				}
				delete(want, id)
			}
			if len(want) > 0 {
				id := slices.Min(slices.Collect(maps.Keys(want)))
				return fmt.Errorf("%v's timer %d is not armed after the step, want it due in %d ticks", p, id, want[id])
			}
			return nil
		}}
}

// tickedTimers checks a Tick: every armed timer is one tick closer to its
// deadline, none was due, and nothing else changed.
func tickedTimers(prev, next *World) error {
	for r := range core.Rank(prev.N()) {
		pp, np := prev.proc(r), next.proc(r)
		if !slices.Equal(pp.timers, np.timers) || len(pp.due) != len(np.due) {
			return fmt.Errorf("a Tick changed the timers armed at %v", r)
		}
		for j, d := range pp.due {
			if d <= 0 {
				return fmt.Errorf("a Tick passed the deadline of %v's timer %d without firing it", r, pp.timers[j])
			}
			if np.due[j] != d-1 {
				return fmt.Errorf("a Tick took %v's timer %d from %d ticks before its deadline to %d, want %d", r, pp.timers[j], d, np.due[j], d-1)
			}
		}
	}
	return nil
}
