package env

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// Apply returns the world after a in s; s is unchanged. An action that is
// not enabled (or malformed) yields an error wrapping ErrNotEnabled; a node
// whose Step fails or panics, or emits a send to an invalid rank, yields a
// *StepError. Cost: one lookup of the memoized step (a node Clone and Step
// the first time the node meets the event in that state: nodes.go), plus
// O(log N) tree nodes and one inbox copy per process the step touches (the
// crash of a sender under LossOnCrash scans every inbox).
func (m *Model) Apply(s *World, a checker.Action) (*World, error) {
	if s == nil || s.m != m {
		return nil, errors.New("env: Apply on a world of another model")
	}
	t := newTx(s.root, m.height)
	nw, blk := m.newWorld(&t)
	*nw = World{m: m, blk: blk, alt: s.alt, crashed: s.crashed, ncrash: s.ncrash, nfail: s.nfail, spent: s.spent,
		clock: s.clock, now: s.now, depth: s.depth + 1, last: a, actor: core.NoRank, faults: s.faults}
	n := m.cfg.N
	if a.Kind == Tick || a.Kind == Clock {
		return m.applyGlobal(s, a, nw, &t)
	}
	p, q := core.Rank(a.P), core.Rank(a.Q)
	if !p.Valid(n) {
		return nil, notEnabled(a, fmt.Sprintf("rank P=%d out of range", a.P))
	}
	if a.Kind == Recover {
		return m.applyRecover(s, a, nw, &t) // recovery.go
	}
	pp := t.get(int(p))
	if !pp.live {
		return nil, notEnabled(a, fmt.Sprintf("%v has crashed", p))
	}
	var err error
	switch a.Kind {
	case Deliver, Lose:
		if !q.Valid(n) {
			return nil, notEnabled(a, fmt.Sprintf("rank Q=%d out of range", a.Q))
		}
		i, ok := m.entryOf(pp.inbox, a)
		if !ok {
			return nil, notEnabled(a, fmt.Sprintf("no message %d in flight from %v to %v", a.I, q, p))
		}
		if !m.open(&pp.inbox[i]) {
			return nil, notEnabled(a, fmt.Sprintf("message %d from %v to %v was sent this tick: its window opens at the next (deadline in %d ticks, Δ = %d)", a.I, q, p, pp.inbox[i].d, m.cfg.Delta))
		}
		if a.Kind == Lose && !m.mayLose(s, q) {
			return nil, notEnabled(a, "messages are lost only with LossOnCrash from a crashed sender, or with LossAny within its budget")
		}
		msg, key := pp.inbox[i].msg, pp.inbox[i].key
		mp := t.mut(int(p))
		if a.Kind == Lose {
			mp.inbox = loseMsg(mp.inbox, i, m.cfg.Network) // lossdup.go
			if m.cfg.Loss == LossAny && faultMutant != FaultLoseFree {
				nw.faults.lost++
			}
		} else {
			mp.inbox = removeMsg(mp.inbox, i)
		}
		if a.Kind == Deliver {
			err = m.run(nw, &t, a, p, core.Receive(q, msg), key)
		}
	case Crash:
		isFail := m.fail.Has(p)
		if !isFail && !m.budget(s) {
			return nil, notEnabled(a, fmt.Sprintf("crash budget %d spent (or the wakeup passed)", m.cfg.Crashes))
		}
		if !isFail && m.survive.Has(p) {
			return nil, notEnabled(a, fmt.Sprintf("%v never crashes (Survivors)", p))
		}
		nw.actor = p
		group := m.group(s, p)
		nw.crashed = s.crashed.Clone()
		for _, g := range group {
			mp := t.mut(int(g))
			mp.live = false
			mp.inbox = nil
			mp.timers = nil
			mp.next = nil
			mp.due = nil
			if err := m.forgetCrashed(mp, g); err != nil {
				return nil, &StepError{Action: a, Rank: g, Err: err}
			}
			nw.crashed.Add(g)
			nw.ncrash++
		}
		if isFail {
			nw.nfail++
		} else {
			nw.spent++
		}
		if m.cfg.Faults == CrashRecovery {
			m.touchTold(s, &t, p) // recovery.go
		}
		if h := m.pl.host; m.cfg.Detector == DetectorLocal && h[p] != p && !s.crashed.Has(h[p]) {
			t.mut(int(h[p])) // a Detect(host, p) is now pending
		}
		if m.cfg.Loss == LossOnCrash {
			each(s.root, m.height, 0, func(i int, r *proc) bool {
				if r.live {
					for _, g := range group {
						if lo, hi := senderRange(r.inbox, g); hi > lo {
							t.mut(i)
							break
						}
					}
				}
				return true
			})
		}
	case Detect:
		if !q.Valid(n) || !m.reportable(p, q) || !s.crashed.Has(q) || pp.detected.Has(q) {
			return nil, notEnabled(a, fmt.Sprintf("no pending notification that %v is dead", q))
		}
		mp := t.mut(int(p))
		mp.detected = mp.detected.Clone()
		mp.detected.Add(q)
		mp.ndet++
		err = m.run(nw, &t, a, p, core.Suspect(q), "")
	case Call:
		sched := m.sched[s.alt][p]
		if !m.callable(pp, len(sched)) {
			return nil, notEnabled(a, fmt.Sprintf("%v has no call to make now", p))
		}
		mp := t.mut(int(p))
		in, key := sched[mp.made], m.inEnc[s.alt][p][mp.made]
		mp.made++
		mp.awaiting = m.cfg.Blocking
		err = m.run(nw, &t, a, p, core.Call(in), key)
	case Fire:
		if a.Q != 0 || a.I < 0 {
			return nil, notEnabled(a, "malformed timer action")
		}
		var timers []uint64
		var due []int32
		var ok bool
		if m.timed() {
			timers, due, ok = disarmTimed(pp.timers, pp.due, uint64(a.I))
		} else {
			timers, ok = disarmTimer(pp.timers, uint64(a.I))
		}
		if !ok {
			return nil, notEnabled(a, fmt.Sprintf("timer %d of %v is not armed (or not due)", a.I, p))
		}
		mp := t.mut(int(p))
		mp.timers, mp.due = timers, due
		err = m.run(nw, &t, a, p, core.Timer(uint64(a.I)), "")
	case DetectRecover:
		err = m.applyDetectRecover(s, a, nw, &t, pp) // recovery.go
	case Duplicate:
		err = m.applyDuplicate(s, a, nw, &t, pp) // lossdup.go
	default:
		return nil, notEnabled(a, "unknown kind")
	}
	if err != nil {
		return nil, err
	}
	m.commit(&t, nw)
	nw.root = t.root
	return nw, nil
}

// commit finishes the procs t copied for nw: each one's bytes and hash
// (proc.enc, proc.fp) and its weight in nw, with the tree's sums.
func (m *Model) commit(t *tx, nw *World) {
	for _, i := range t.few[:t.nfew] {
		m.settle(t, nw, i)
	}
	for _, i := range t.more {
		m.settle(t, nw, i)
	}
	t.nfew, t.more = 0, t.more[:0]
}

// settle finishes proc i of t for nw (see commit).
func (m *Model) settle(t *tx, nw *World, i int) {
	p := t.get(i)
	p.enc, p.fp = m.procEnc(p, nw.alt, i, &t.encBuf)
	na := m.weigh(p, i, nw.crashed, len(m.sched[nw.alt][i]))
	if d := na.sub(p.agg); d != (agg{}) {
		p.agg = na
		t.put(i, p, d)
	}
}

// run steps p's node with ev, whose payload encodes as evKey (see
// stepKey), and carries out the effects. The step is memoized (nodes.go):
// the world shares the memo's effects and the next node state.
func (m *Model) run(nw *World, t *tx, a checker.Action, p core.Rank, ev core.Event, evKey string) error {
	nw.actor = p
	mp := t.mut(int(p))
	ns := mp.ns
	if ns == nil {
		ns = m.intern(p, mp.node.Clone())
	}
	st, err := m.step(ns, ev, evKey)
	if err != nil {
		return &StepError{Action: a, Rank: p, Event: ev, Err: err}
	}
	changed := ns != st.to
	mp.ns, mp.node = st.to, st.to.node
	if changed && m.cfg.DropAbsorbed && len(mp.inbox) > 0 {
		mp.inbox = withoutAbsorbed(mp, mp.inbox) // absorb_drop.go
	}
	effs := st.effs
	if len(effs) == 0 {
		return nil
	}
	nw.effects = effs // shared with the memo: never modified
	nrec := 0
	for _, e := range effs {
		if e.Kind == core.EffDecide || e.Kind == core.EffReturn || e.Kind == core.EffDeliver {
			nrec++
		}
	}
	if nrec > 0 {
		mp.hist = append(make([]Record, 0, len(mp.hist)+nrec), mp.hist...)
	}
	for i, e := range effs {
		switch e.Kind {
		case core.EffSend:
			if !e.To.Valid(m.cfg.N) || e.Msg == nil {
				return &StepError{Action: a, Rank: p, Event: ev,
					Err: fmt.Errorf("invalid send effect: to %v, message %v", e.To, e.Msg)}
			}
			if nw.crashed.Has(e.To) {
				continue // the receiver is dead: dropped
			}
			if m.cfg.DropAbsorbed && absorbs(t.get(int(e.To)), p, e.Msg) {
				continue // absorbed at its send (absorb_drop.go)
			}
			mq := t.mut(int(e.To))
			mq.inbox = insertMsg(mq.inbox, m.cfg.Network, p, st.keys[i], e.Msg, m.sendDeadline())
		case core.EffDecide, core.EffReturn, core.EffDeliver:
			mp.hist = append(mp.hist, Record{Kind: e.Kind, Instance: e.Instance, Value: e.Value}) // owned: made above
			if e.Kind == core.EffReturn {
				mp.awaiting = false
			}
		case core.EffSetTimer:
			if e.Timer > math.MaxInt32 {
				return &StepError{Action: a, Rank: p, Event: ev,
					Err: fmt.Errorf("timer id %d over %d", e.Timer, math.MaxInt32)}
			}
			switch m.cfg.Timing {
			case BoundedDelay:
				d, err := timerOffset(e.Delay)
				if err != nil {
					return &StepError{Action: a, Rank: p, Event: ev, Err: err}
				}
				mp.timers, mp.due = armTimed(mp.timers, mp.due, e.Timer, d)
			case LockStepRounds:
				mp.next = armTimer(mp.next, e.Timer)
			default:
				mp.timers = armTimer(mp.timers, e.Timer)
			}
		}
	}
	return nil
}

// safeStep runs node.Step, appending to out, turning a panic into an
// error.
func safeStep(node core.Machine, ev core.Event, out []core.Effect) (effs []core.Effect, err error) {
	defer func() {
		if r := recover(); r != nil {
			effs, err = out[:0], fmt.Errorf("panic: %v", r)
		}
	}()
	return node.Step(ev, out)
}

// effScratch holds the buffers nodes step into (Apply keeps an exact copy).
var effScratch = sync.Pool{New: func() any { return new([]core.Effect) }}

// newWorld allocates the world an Apply builds and, when the process tree
// is one leaf (N ≤ 32), the leaf the edit will own, the first nSpare procs
// it copies and room for their bytes, in the same block (recycle.go): one
// allocation instead of three per proc copied and two more (world, leaf,
// proc slice), or none when a recycled block is at hand. It makes t own the root and
// returns the block (nil for a taller tree), which the caller records in
// the world it fills (World.blk).
func (m *Model) newWorld(t *tx) (*World, block) {
	if m.height != 0 {
		return &World{}, nil
	}
	old := t.root
	n := len(old.procs)
	var w *World
	var l *tnode
	var ps []*proc
	var b block
	switch {
	case n <= 4:
		c := pool4.Get().(*block4)
		clear(c.ps[n:])
		w, l, t.spares, ps, t.encBuf, b = &c.w, &c.l, c.spare[:], c.ps[:n:n], c.enc[:0], c
	case n <= 8:
		c := pool8.Get().(*block8)
		clear(c.ps[n:])
		w, l, t.spares, ps, t.encBuf, b = &c.w, &c.l, c.spare[:], c.ps[:n:n], c.enc[:0], c
	case n <= 16:
		c := pool16.Get().(*block16)
		clear(c.ps[n:])
		w, l, t.spares, ps, t.encBuf, b = &c.w, &c.l, c.spare[:], c.ps[:n:n], c.enc[:0], c
	default:
		c := pool32.Get().(*block32)
		clear(c.ps[n:])
		w, l, t.spares, ps, t.encBuf, b = &c.w, &c.l, c.spare[:], c.ps[:n:n], c.enc[:0], c
	}
	copy(ps, old.procs)
	*l = tnode{edit: t.edit, sum: old.sum, procs: ps}
	t.root = l
	return w, b
}

// nSpare is the number of procs a world's allocation (newWorld) has room
// for: an Apply that copies more allocates the others apart. The actor
// and up to three receivers fit.
const nSpare = 4

// encRoom is the room for the copied procs' bytes (proc.enc) in a world's
// allocation (newWorld), shared by its spares in the order they are
// encoded (an ERA N=4 process encodes in about 35 bytes): bytes that do
// not fit are allocated apart.
const encRoom = 192

// allocLeaf allocates a World and a leaf with room for n ≤ twidth procs
// (ps, of length n) in one object.
func allocLeaf(n int) (w *World, l *tnode, ps []*proc) {
	switch {
	case n <= 4:
		c := new(struct {
			w  World
			l  tnode
			ps [4]*proc
		})
		return &c.w, &c.l, c.ps[:n:n]
	case n <= 8:
		c := new(struct {
			w  World
			l  tnode
			ps [8]*proc
		})
		return &c.w, &c.l, c.ps[:n:n]
	case n <= 16:
		c := new(struct {
			w  World
			l  tnode
			ps [16]*proc
		})
		return &c.w, &c.l, c.ps[:n:n]
	}
	c := new(struct {
		w  World
		l  tnode
		ps [twidth]*proc
	})
	return &c.w, &c.l, c.ps[:n:n]
}

// applyGlobal applies a Tick or a Clock, the two actions that change every
// live process: a Tick fires the timers armed for the next round from now
// on, a Clock arms the next Config.Wakeups timer everywhere.
func (m *Model) applyGlobal(s *World, a checker.Action, nw *World, t *tx) (*World, error) {
	if a.P != 0 || a.Q != 0 || a.I != 0 {
		return nil, notEnabled(a, "a global action has no operands")
	}
	var arm func(mp *proc)
	switch {
	case a.Kind == Tick && m.timed() && m.tickDueDelay(s):
		nw.now++
		arm = tickDelay
	case a.Kind == Tick && m.timed():
		return nil, notEnabled(a, "no tick due (one is due once nothing is due at the current tick and a message or timer waits)")
	case a.Kind == Tick && m.tickDue(s):
		arm = func(mp *proc) {
			for _, id := range mp.next {
				mp.timers = armTimer(mp.timers, id)
			}
			mp.next = nil
		}
	case a.Kind == Clock && m.clockDue(s):
		id := m.cfg.Wakeups[s.clock]
		nw.clock++
		arm = func(mp *proc) { mp.timers = armTimer(mp.timers, id) }
	case a.Kind == Tick:
		return nil, notEnabled(a, "no round due (one is due once nothing but crashes is enabled and a timer waits for the next round)")
	default:
		return nil, notEnabled(a, "no wakeup due (one is due once nothing but crashes is enabled)")
	}
	each(s.root, m.height, 0, func(i int, r *proc) bool {
		if r.live && (a.Kind == Clock || len(r.next) > 0 || m.timed() && (len(r.inbox) > 0 || len(r.timers) > 0)) {
			arm(t.mut(i))
		}
		return true
	})
	m.commit(t, nw)
	nw.root = t.root
	return nw, nil
}
