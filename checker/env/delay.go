package env

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// The BoundedDelay timing mode (see the package documentation, "Bounded
// delay"). Every deadline is kept relative to the current tick, so the
// clock itself is not part of a world's encoding:
//
//   - a message in flight carries d, its deadline minus now: it is sent with
//     d = Δ, may be delivered once d < Δ (its window [t+1, t+Δ] is open) and
//     must be delivered (or lost) before the next Tick once d = 0;
//   - an armed timer carries its deadline minus now, in [0, MaxTimerDelay]:
//     it fires exactly when that is 0, before the next Tick;
//   - a Tick lowers every d and every timer offset by one.

// MaxDelta bounds Config.Delta, and MaxTimerDelay an EffSetTimer Delay
// under BoundedDelay (ticks): both keep offsets in an int32.
const (
	MaxDelta      = 1 << 20
	MaxTimerDelay = 1 << 30
)

// validateDelay checks Delta against Timing, and the settings that
// BoundedDelay does not combine with.
func (c *Config) validateDelay() error {
	if c.Timing != BoundedDelay {
		if c.Delta != 0 {
			return fmt.Errorf("the delay bound Delta = %d needs Timing %v (it is %v)", c.Delta, BoundedDelay, c.Timing)
		}
		return nil
	}
	switch {
	case c.Delta < 1 || c.Delta > MaxDelta:
		return fmt.Errorf("the delay bound Delta = %d, want 1 ≤ Delta ≤ %d under %v timing", c.Delta, MaxDelta, BoundedDelay)
	case len(c.Wakeups) > 0 || c.CrashBeforeWakeup:
		return errors.New("wakeups (Config.Wakeups: a synchronized clock in abstract time) do not combine with BoundedDelay: arm timers instead")
	}
	return nil
}

// timed reports whether the model runs under BoundedDelay.
func (m *Model) timed() bool { return m.cfg.Timing == BoundedDelay }

// open reports whether message entry e may be delivered (or lost) now: its
// delivery window has opened. Always true outside BoundedDelay.
func (m *Model) open(e *entry) bool {
	return m.cfg.Timing != BoundedDelay || int(e.d) < m.cfg.Delta || delayMutant == DelayWindowSendTick && int(e.d) == m.cfg.Delta
}

// sendDeadline is the d of a message sent now: Δ under BoundedDelay, 0
// (unused) otherwise.
func (m *Model) sendDeadline() int32 {
	if m.timed() {
		if delayMutant == DelaySendAged {
			return int32(m.cfg.Delta) - 1
		}
		return int32(m.cfg.Delta)
	}
	return 0
}

// timerOffset is the offset, from now, of the deadline of a timer armed
// with delay (ticks). Ambiguity: core.Effect.Delay 0 ("fire at once") is
// read as 1, the next tick: a timer never fires in the tick that armed it,
// as under LockStepRounds, so a protocol that re-arms a timer with Delay 0
// from its own firing (correction's send slots) advances time instead of
// looping within one tick (a Zeno run), and every cycle of the state graph
// contains a Tick. Delays over MaxTimerDelay are an error.
func timerOffset(delay uint64) (int32, error) {
	if delay > MaxTimerDelay {
		return 0, fmt.Errorf("timer delay %d over %d ticks", delay, MaxTimerDelay)
	}
	if delayMutant == DelayTimerEarly {
		return int32(max(delay, 1)) - 1, nil
	}
	return int32(max(delay, 1)), nil
}

// armTimed returns p's timers with id armed at offset d (ids ascending,
// offsets parallel): re-arming an armed id replaces its deadline (the
// timer-reset reading of heartbeat detectors). Slices are replaced, never
// written.
func armTimed(ids []uint64, due []int32, id uint64, d int32) ([]uint64, []int32) {
	i, found := slices.BinarySearch(ids, id)
	if found {
		due = slices.Clone(due)
		due[i] = d
		return ids, due
	}
	return slices.Insert(slices.Clip(ids), i, id), slices.Insert(slices.Clip(due), i, d)
}

// disarmTimed returns p's timers without timer id, if it is armed and due
// now (offset 0), and whether it was.
func disarmTimed(ids []uint64, due []int32, id uint64) ([]uint64, []int32, bool) {
	i, found := slices.BinarySearch(ids, id)
	if !found || due[i] != 0 {
		return ids, due, false
	}
	return slices.Delete(slices.Clone(ids), i, i+1), slices.Delete(slices.Clone(due), i, i+1), true
}

// weighDelay is weigh under BoundedDelay for a live process: w counts the
// open messages (under FIFO the queue heads whose window is open), one
// Lose more for each from a crashed sender under LossOnCrash, the call it
// may make and its due timers; due counts what must happen before the next
// Tick (messages at their deadline, due timers, the call); later counts
// every message and timer (something the clock must still reach).
func (m *Model) weighDelay(p *proc, i int, crashed core.RankSet, nsched int) agg {
	var a agg
	prev := core.NoRank
	for i := range p.inbox {
		e := &p.inbox[i]
		a.later++
		if e.d == 0 {
			a.due++
		}
		if m.cfg.Network == FIFO {
			if e.from == prev {
				continue
			}
			prev = e.from
		}
		if !m.open(e) {
			continue
		}
		a.w++
		if m.cfg.Loss == LossOnCrash && crashed.Has(e.from) {
			a.w++
		}
	}
	if m.callable(p, nsched) {
		a.w++
		a.due++
	}
	for _, d := range p.due {
		a.later++
		if d == 0 {
			a.w++
			a.due++
		}
	}
	a.live, a.det = 1, int64(p.ndet)
	if m.cfg.Detector == DetectorLocal {
		k := m.localPending(p, i, crashed)
		a.w += k
		a.due += k
		a.det = 0
	}
	if m.cfg.Faults == CrashRecovery {
		det, back := told(p, crashed) // recovery.go: DetectRecover actions are due at once
		a.w += back
		a.due += back
		a.det = det
	}
	return a
}

// tickDueDelay reports whether a Tick is enabled in s under BoundedDelay:
// nothing is due now (no message at its deadline, no due timer, no call to
// make, no pending detector notification) and the clock has something to
// reach (a message in flight or an armed timer). A world with nothing left
// has no Tick: time passing would change nothing.
func (m *Model) tickDueDelay(s *World) bool {
	sum := s.root.sum
	return sum.later > 0 && (sum.due == 0 || delayMutant == DelayTickLate) && sum.live*m.detc(s)-sum.det == 0
}

// tickDelay is the effect of a Tick on live process r (owned by the Tick's
// edit): every message deadline and timer offset moves one tick closer.
// Messages with equal sender and bytes keep distinct deadlines, so the
// inbox stays in canonical order.
func tickDelay(r *proc) {
	if len(r.inbox) > 0 {
		in := slices.Clone(r.inbox)
		for i := range in {
			in[i].d--
		}
		r.inbox = in
	}
	if len(r.due) > 0 {
		due := slices.Clone(r.due)
		for i := range due {
			due[i]--
		}
		r.due = due
	}
}

// appendTimers appends armed timers: their count, then each id
// (ascending), followed under BoundedDelay (timed) by its deadline offset
// due[i].
func appendTimers(b []byte, ids []uint64, due []int32, timed bool) []byte {
	b = core.AppendUint(b, uint64(len(ids)))
	for i, id := range ids {
		b = core.AppendUint(b, id)
		if timed {
			b = core.AppendUint(b, uint64(due[i]))
		}
	}
	return b
}

// decodeTimers reads what appendTimers wrote: ids strictly ascending,
// offsets (timed) at most MaxTimerDelay; other bytes fail d (an error
// wrapping core.ErrMalformed). For Model.Decode.
func decodeTimers(d *core.Decoder, timed bool) ([]uint64, []int32) {
	n := d.Len(d.Remaining())
	if n == 0 || d.Err() != nil {
		return nil, nil
	}
	ids := make([]uint64, 0, n)
	var due []int32
	for j := 0; j < n && d.Err() == nil; j++ {
		id := d.Uint()
		if j > 0 && id <= ids[j-1] {
			d.Fail("timer ids not strictly ascending")
		}
		ids = append(ids, id)
		if timed {
			off := d.Uint()
			if off > MaxTimerDelay {
				d.Fail("timer offset %d over %d", off, MaxTimerDelay)
			}
			due = append(due, int32(off))
		}
	}
	return ids, due
}

// decodeDeadline reads the deadline offset of an inbox entry under
// BoundedDelay with bound delta: at most delta. For Model.Decode, which
// must also accept, under Unordered, equal sender and bytes with strictly
// ascending offsets (insertMsg's order).
func decodeDeadline(d *core.Decoder, delta int) int32 {
	off := d.Uint()
	if d.Err() == nil && off > uint64(delta) {
		d.Fail("message deadline offset %d over Δ = %d", off, delta)
	}
	return int32(off)
}

// Now is the number of Tick actions taken under BoundedDelay (the global
// clock, in ticks; 0 under the other timings, where LockStepRounds counts
// no rounds here). It is not encoded: like Depth it depends on the path
// that reached the world, and properties must not read it.
func (w *World) Now() int64 { return w.now }

// TimerDeadlines lists, under BoundedDelay, the offsets (ticks from now,
// 0 = due now) of p's armed timers, in the order of Timers(p); nil under
// the other timings (shared: do not modify).
func (w *World) TimerDeadlines(p core.Rank) []int32 { return slices.Clip(w.proc(p).due) }

// Deadlines lists, under BoundedDelay, the deadline offset (ticks from now)
// of each message in flight, in InFlight order: a message may be delivered
// once its offset is below Config.Delta and must be by the next Tick once
// it is 0. Nil under the other timings.
func (w *World) Deadlines() []int32 {
	if w.m.cfg.Timing != BoundedDelay {
		return nil
	}
	var out []int32
	each(w.root, w.m.height, 0, func(_ int, p *proc) bool {
		for _, e := range p.inbox {
			for range e.n {
				out = append(out, e.d)
			}
		}
		return true
	})
	return out
}

// Broken variants of BoundedDelay's timing rules, for the tests that show
// the timing properties (delayprops.go) catch them; delayMutant is None
// except while such a test runs (SetDelayMutant).
const (
	// DelayWindowSendTick opens a message's window in its send tick.
	DelayWindowSendTick mutant.Name = "delay-window-send-tick"
	// DelayTimerEarly sets a timer's deadline one tick early (Delay 1 and 0
	// fire in the tick that armed them).
	DelayTimerEarly mutant.Name = "delay-timer-early"
	// DelayTickLate lets a Tick pass while a message or timer is due.
	DelayTickLate mutant.Name = "delay-tick-late"
	// DelaySendAged puts a message in flight one tick old (deadline t+Δ−1,
	// deliverable in its send tick).
	DelaySendAged mutant.Name = "delay-send-aged"
)

// DelayMutants are the broken variants of BoundedDelay's timing rules.
var DelayMutants = []mutant.Name{DelayWindowSendTick, DelayTimerEarly, DelayTickLate, DelaySendAged}

var delayMutant mutant.Name

// SetDelayMutant turns a broken variant of BoundedDelay's timing rules
// (DelayMutants) on in every model, for tests (mutant.None: off), and
// returns the function that restores the previous one. No search may run
// while it is called.
func SetDelayMutant(name mutant.Name) (restore func()) {
	old := delayMutant
	delayMutant = name
	return func() { delayMutant = old }
}

var _ checker.Timed = (*Model)(nil)

// Elapsed is the time action a takes, in ticks: 1 for a Tick under
// BoundedDelay, 0 for everything else (and under the other timings, whose
// time is abstract). It makes Model a checker.Timed, so the bounds of
// Eventually properties (checker.Bound.Time) come in ticks.
func (m *Model) Elapsed(a checker.Action) int {
	if a.Kind == Tick && m.timed() {
		return 1
	}
	return 0
}
