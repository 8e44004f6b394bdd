package env

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// Lossy and duplicating channels with budgets.
//
// LossAny (Config.Losses = L ≥ 1): any message in flight to a live process
// may be lost, each loss a Lose(P, Q, I) action, at most L of them in a
// run (World.Lost). Under FIFO any entry of the queue from Q to P may be
// lost, not only its head, and I is its position in the queue (entries:
// equal neighbours are one entry of several copies): losing a later
// message first leaves the receiver a gap an earlier loss cannot make, and
// the budget makes that a different run. The rest of the queue keeps its
// order. LossOnCrash's unbounded losses of a crashed sender's messages
// are another mode (one Loss at a time).
//
// Duplication (Config.Duplicates = D ≥ 1, with any Loss mode): any message
// in flight to a live process may be duplicated, each a Duplicate(P, Q, I)
// action (operands as Lose's), at most D of them in a run
// (World.Duplicated). The copy is put next to the message: under FIFO
// right behind it in the queue, so the receiver gets the same message
// twice in a row. Appending it at the end of the queue would reorder it
// behind messages sent after it, which a FIFO channel never does: the
// copy a link-layer retransmission makes arrives in order. Under Unordered
// position means nothing; the entry has one copy more either way.
//
// Under BoundedDelay only a message whose window is open may be lost or
// duplicated (as a delivery), and the copy keeps its deadline: both
// copies of a send are delivered, or lost, within its window, so the
// timing properties (delayprops.go) hold unchanged.
//
// Losses and duplicates are faults, not work: neither is ever enabled in
// a quiescent world (a message is in flight, so its delivery is too), and
// random walks (Sample) pick them uniformly with the deliveries.

// lossAny reports whether a Lose or Duplicate (a.Kind) names any entry of
// a queue, not only its head.
func (m *Model) anyEntry(kind uint8) bool {
	return kind == Duplicate || kind == Lose && m.cfg.Loss == LossAny
}

// entryOf returns the position in in (the receiver's inbox) of the
// message a Deliver, Lose or Duplicate action a names.
func (m *Model) entryOf(in []entry, a checker.Action) (int, bool) {
	q := core.Rank(a.Q)
	if !m.anyEntry(a.Kind) {
		return findEntry(in, m.cfg.Network, q, a.I)
	}
	lo, hi := senderRange(in, q)
	if a.I < 0 || int(a.I) >= hi-lo {
		return 0, false
	}
	return lo + int(a.I), true
}

// mayLose reports whether a message from q may be lost in s (the budget
// under LossAny, q's crash under LossOnCrash).
func (m *Model) mayLose(s *World, q core.Rank) bool {
	switch m.cfg.Loss {
	case LossOnCrash:
		return s.crashed.Has(q)
	case LossAny:
		return int(s.faults.lost) < m.cfg.Losses
	}
	return false
}

// loseMsg returns a new inbox with one copy of in[i] less; under FIFO an
// entry that goes leaves its neighbours merged when they are equal (same
// sender, bytes and deadline), as insertMsg keeps them.
func loseMsg(in []entry, i int, net Network) []entry {
	out := removeMsg(in, i)
	if net != FIFO || len(out) == len(in) || i == 0 || i >= len(out) {
		return out
	}
	a, b := out[i-1], out[i]
	if a.from == b.from && a.key == b.key && a.d == b.d {
		out = slices.Clone(out)
		out[i-1].n += b.n
		out = slices.Delete(out, i, i+1)
	}
	return out
}

// appendAnyEntry appends an action of kind (Lose or Duplicate) for every
// open entry in flight to a live process, in (P, Q, I) order, I counting
// every entry from Q.
func (m *Model) appendAnyEntry(s *World, kind uint8, buf []checker.Action) []checker.Action {
	each(s.root, m.height, 0, func(i int, p *proc) bool {
		if !p.live {
			return true
		}
		run, prev := int32(0), core.NoRank
		for j := range p.inbox {
			e := &p.inbox[j]
			if e.from != prev {
				run, prev = 0, e.from
			}
			if m.open(e) {
				buf = append(buf, checker.Action{Kind: kind, P: int32(i), Q: int32(e.from), I: run})
			}
			run++
		}
		return true
	})
	return buf
}

// applyDuplicate applies Duplicate(p, q, i) to nw (p live, its record pp
// in s).
func (m *Model) applyDuplicate(s *World, a checker.Action, nw *World, t *tx, pp *proc) error {
	q := core.Rank(a.Q)
	switch {
	case int(s.faults.duped) >= m.cfg.Duplicates:
		return notEnabled(a, fmt.Sprintf("duplication budget %d spent", m.cfg.Duplicates))
	case !q.Valid(m.cfg.N):
		return notEnabled(a, fmt.Sprintf("rank Q=%d out of range", a.Q))
	}
	i, ok := m.entryOf(pp.inbox, a)
	if !ok {
		return notEnabled(a, fmt.Sprintf("no message %d in flight from %v to %v", a.I, q, core.Rank(a.P)))
	}
	if !m.open(&pp.inbox[i]) {
		return notEnabled(a, "message sent this tick: its window opens at the next")
	}
	mp := t.mut(int(a.P))
	mp.inbox = slices.Clone(mp.inbox)
	mp.inbox[i].n++
	if faultMutant == FaultDupTwice {
		mp.inbox[i].n++
	}
	nw.faults.duped++
	return nil
}
