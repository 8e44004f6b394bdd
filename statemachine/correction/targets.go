package correction

import (
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// MaySendTo reports whether some later step of this process, on any
// sequence of events, may send a message to r: false only when the rules
// guarantee it never does. It is what a checker's partial-order reduction
// needs ("may still send to", checker/env Config.MaySend), read off the
// rules that send:
//
//   - An uncolored process may send to anyone: once colored by a TREE or
//     gossip message it sends its tree messages and takes part in
//     correction (disseminate), and a mutant may make it a participant
//     (uncoloredJoins, coloredSends).
//   - A colored process sends only on its own steps, and after its
//     coloring step only from a timer (sendNext and sendGossip on
//     TimerSendSlot, onDelay) or, in delayed correction, from stopReply.
//     Tree sends and coloredByCorrection's happen in the coloring step;
//     a later TREE or gossip message is masked (onTree); a correction
//     message to a colored process records its sender (heard,
//     narrowOptimized) and sends only stopReply.
//   - A colored non-participant sends nothing more (sendNext and stopReply
//     are a participant's); nor does a participant without correction.
//   - A participant of Corrected Gossip that has not started correction
//     may still gossip (sendGossip): anyone.
//   - A participant of delayed correction: anyone (stopReply answers any
//     message from the left, and onDelay reopens the right direction).
//   - A participant of opportunistic, optimized or checked correction
//     sends only in sendNext, to the ring distance ringDist(next) of an
//     active direction, then next grows by one. So it may send to r only
//     if r is at distance ringDist(k) on the left (right) for some k in
//     nextL … limL (nextR … limR) of a direction that is active now: next
//     never decreases (++ in sendNext, max in narrowOptimized), lim never
//     grows (min in narrowOptimized, next-1 in compact), and a stopped
//     direction stays stopped (stopped: recv only shrinks towards the
//     nearest sender and next only grows, coverStopped's sum only grows;
//     compact closes a stopped direction for good by lim = next-1).
//
// Cost: O(P) per call. r outside 0 … P-1 or r itself: false for the ring
// part (no message to oneself is ever sent).
func (n *Node) MaySendTo(r core.Rank) bool { return n.maySend(r, nil) }

// MayDisturb reports whether some later step of this process may send to
// process to (a node of the same broadcast) a message that to does not
// absorb (Absorbs, in its current state, hence in every later one): it is
// MaySendTo(to.Rank()) less the correction messages to would absorb. A
// colored sender of checked or (optimized) opportunistic correction sends
// to in direction d only correction messages of direction d from its own
// rank (sendNext), so those are the ones asked about.
func (n *Node) MayDisturb(to *Node) bool { return n.maySend(to.rank, to) }

// maySend is MaySendTo, and MayDisturb when to is not nil.
func (n *Node) maySend(r core.Rank, to *Node) bool {
	switch {
	case n.via == Uncolored:
		return true
	case n.flags&fParticipant == 0 || n.cfg.Correction == NoCorrection:
		return false
	case n.cfg.Gossip != nil && n.flags&fStarted == 0:
		return true
	case n.cfg.Correction == Delayed:
		return true
	}
	P := n.p()
	if !r.Valid(int(P)) || r == n.rank {
		return false
	}
	left := (int32(n.rank) - int32(r) + P) % P // r's distance on the left
	right := P - left                          // and on the right
	for _, d := range [...]Dir{Left, Right} {
		dist := left
		if d == Right {
			dist = right
		}
		if n.aheadOf(d, dist) && (to == nil || to.via == Uncolored || !to.absorbsCorrection(n.rank, d)) {
			return true
		}
	}
	return false
}

// aheadOf reports whether direction d is active and distance dist is
// ringDist(k) for one of its cursor values k from next to lim.
func (n *Node) aheadOf(d Dir, dist int32) bool {
	if !n.active(d) {
		return false
	}
	next, lim := n.nextL, n.limL
	if d == Right {
		next, lim = n.nextR, n.limR
	}
	for k := next; k <= lim; k++ {
		if n.ringDist(k) == dist {
			return true
		}
	}
	return false
}

// Absorbs reports whether receiving msg from process from is a no-op for
// this process (no effect, state unchanged, AppendBinary equal), now and in
// every state its later steps may reach (checker/env Absorber, used by
// partial-order reduction). False is always safe; it is true when the
// process is colored and
//
//   - msg is a TREE or gossip message: a masked duplicate (onTree), and a
//     colored process stays colored;
//   - msg is a correction message that changes nothing on receipt
//     (onCorrection): not redelivered (MutantRedeliverOnCorrection), no
//     stop reply (delayed correction answers a participant's message from
//     the left), the side it comes from already heard from at that
//     distance or nearer (heard keeps the nearest, and the nearest only
//     gets nearer) or forgotten by compact (Config.Compact: a
//     non-participant's cursors, every recv of (optimized) opportunistic
//     correction, a checked direction that is over), and for optimized
//     correction narrowOptimized already as narrow as the message would
//     make it (limits only shrink, cursors only grow).
func (n *Node) Absorbs(from core.Rank, msg core.Message) bool {
	m, ok := msg.(*Msg)
	P := n.p()
	if n.via == Uncolored || !ok || m == nil || m.set == nil || !from.Valid(int(P)) || from == n.rank {
		return false
	}
	if m.kind == tagTree {
		return true
	}
	if m.kind != tagCorrection {
		return false
	}
	return n.absorbsCorrection(from, m.dir)
}

// absorbsCorrection is Absorbs for a correction message sent in direction
// dir by from, a valid rank other than n's, to a colored n.
func (n *Node) absorbsCorrection(from core.Rank, dir Dir) bool {
	P := n.p()
	if dir != Left && dir != Right || n.cfg.Mutant == MutantRedeliverOnCorrection {
		return false
	}
	part := n.flags&fParticipant != 0
	if n.cfg.Correction == Delayed && part && dir == Right {
		return false // stopReply
	}
	if n.cfg.Compact && !part {
		return true // compact resets every cursor of a non-participant
	}
	// The side heard from: a message sent to the left comes from the right.
	side, recv := Right, n.recvR
	delta := (int32(from) - int32(n.rank) + P) % P
	if dir == Right {
		side, recv = Left, n.recvL
		delta = P - delta
	}
	heardNoop := recv != 0 && recv <= delta || recv == 0 && n.cfg.Mutant == MutantAbsorbUnheard
	if n.cfg.Compact {
		switch n.cfg.Correction {
		case Opportunistic, OptimizedOpportunistic:
			heardNoop = true // compact forgets every recv
		case Checked:
			heardNoop = heardNoop || !n.active(side)
		}
	}
	return heardNoop && n.narrowNoop(dir, delta)
}

// narrowNoop reports whether narrowOptimized changes nothing for a message
// sent in direction dir from distance delta, now and later.
func (n *Node) narrowNoop(dir Dir, delta int32) bool {
	d := int32(n.cfg.Distance)
	if n.cfg.Correction != OptimizedOpportunistic || delta >= d {
		return true
	}
	if dir != Left {
		return n.cfg.Mutant != MutantOptimizedMirror
	}
	return n.limR <= n.nextR-1 && n.nextL >= d-delta+1
}

// AbsorbMutants are deliberately wrong Absorbs variants, for the tests
// that the guards of the reductions built on Absorbs (models/all
// TestDropAbsorbedSoundness) catch an Absorbs that claims a message that
// is not a no-op. They are not protocol mutants: Absorbs is a promise to
// the environment, not a rule, so without a reduction that trusts it they
// change nothing, and they are not in Mutants; a Config may name them
// (tests only).
var AbsorbMutants = []mutant.Name{MutantAbsorbUnheard}

// MutantAbsorbUnheard makes Absorbs claim a correction message from a side
// not heard from yet (recv 0 read as "heard from everywhere" instead of
// "from nowhere"), though such a message is recorded (heard) and may stop
// the direction's sends.
const MutantAbsorbUnheard = mutant.Name("absorb-unheard")

// CorrectionsTo appends to buf the correction messages this process may
// still send to r, one per active direction whose remaining distances
// reach r (the messages of MaySendTo's ring part, sendNext), and reports
// true; it reports false when the process may send r other messages too
// (MaySendTo's "anyone" cases: uncolored, Corrected Gossip before the
// start, delayed correction). A non-participant appends nothing.
func (n *Node) CorrectionsTo(r core.Rank, buf []core.Message) ([]core.Message, bool) {
	switch {
	case n.via == Uncolored:
		return buf, false
	case n.flags&fParticipant == 0 || n.cfg.Correction == NoCorrection:
		return buf, true
	case n.cfg.Gossip != nil && n.flags&fStarted == 0:
		return buf, false
	case n.cfg.Correction == Delayed:
		return buf, false
	}
	P := n.p()
	if !r.Valid(int(P)) || r == n.rank {
		return buf, true
	}
	left := (int32(n.rank) - int32(r) + P) % P
	if n.aheadOf(Left, left) {
		buf = append(buf, &n.msgs.left)
	}
	if n.aheadOf(Right, P-left) {
		buf = append(buf, &n.msgs.right)
	}
	return buf, true
}
