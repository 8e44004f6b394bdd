package correction

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// step dispatches ev to its handler. Every handler checks its event before
// changing anything, so an error leaves the state as it was.
func (n *Node) step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		return n.onBroadcast(ev.Input, out)
	case core.EvReceive:
		m, err := n.checkMessage(ev)
		if err != nil {
			return out, err
		}
		if m.kind == tagTree {
			return n.onTree(m, out), nil
		}
		return n.onCorrection(ev.From, m, out), nil
	case core.EvTimer:
		switch ev.Timer {
		case TimerStart:
			return n.onStart(out), nil
		case TimerSendSlot:
			return n.onSendSlot(out)
		case TimerDelay:
			return n.onDelay(out)
		}
		return out, fmt.Errorf("correction: unknown timer %d", ev.Timer)
	}
	return out, fmt.Errorf("correction: unexpected event %v", ev)
}

// onBroadcast is the root's Broadcast call (§2.1): the root colors itself
// with the value, sends its tree messages and, overlapped, starts
// correction (§3.3). Only rank 0 broadcasts, once.
func (n *Node) onBroadcast(in core.Input, out []core.Effect) ([]core.Effect, error) {
	var v Value
	switch b := in.(type) {
	case Broadcast:
		v = b.Value
	case *Broadcast:
		if b == nil {
			return out, fmt.Errorf("correction: nil broadcast input")
		}
		v = b.Value
	default:
		return out, fmt.Errorf("correction: input %v is not a Broadcast", in)
	}
	if n.rank != 0 {
		return out, fmt.Errorf("correction: %v is not the root, cannot broadcast", n.rank)
	}
	if n.via != Uncolored {
		return out, fmt.Errorf("correction: broadcast started twice")
	}
	out = n.color(ViaRoot, newMsgSet(v), out)
	return n.disseminate(out), nil
}

// checkMessage accepts a message of this package from another valid rank;
// a correction message must have a direction.
func (n *Node) checkMessage(ev core.Event) (*Msg, error) {
	m, ok := ev.Msg.(*Msg)
	if !ok || m == nil || m.set == nil {
		return nil, fmt.Errorf("correction: foreign message %v", ev.Msg)
	}
	if !ev.From.Valid(int(n.p())) || ev.From == n.rank {
		return nil, fmt.Errorf("correction: message from invalid sender %v", ev.From)
	}
	if m.kind == tagCorrection && m.dir != Left && m.dir != Right {
		return nil, fmt.Errorf("correction: correction message without direction")
	}
	return m, nil
}

// onTree is the receipt of a TREE (or gossip) message: it colors an
// uncolored process, which then disseminates (§3.2) and takes part in
// correction; to a colored process it is a masked duplicate (§2.1 "No
// duplicates"), whatever colored it.
func (n *Node) onTree(m *Msg, out []core.Effect) []core.Effect {
	if n.via != Uncolored {
		return out // masked duplicate (§2.1)
	}
	out = n.color(ViaTree, m.set, out)
	return n.disseminate(out)
}

// onCorrection is the receipt of a correction message from a process on
// the ring: it records how near the sender is (heard), which the stop rules
// of checked and delayed correction and the limits of optimized
// opportunistic correction read; it colors an uncolored process
// (coloredByCorrection decides what that process sends); a colored
// participant of delayed correction answers a message from the left
// (stopReply).
func (n *Node) onCorrection(from core.Rank, m *Msg, out []core.Effect) []core.Effect {
	delta := n.heard(from, m.dir)
	if n.cfg.Correction == OptimizedOpportunistic {
		n.narrowOptimized(m.dir, delta)
	}
	if n.via == Uncolored {
		out = n.color(ViaCorrection, m.set, out)
		out = n.coloredByCorrection(out)
		return n.replyAny(from, m.dir, out) // mutant hook (mutants.go)
	}
	out = n.redeliver(out) // mutant hook (mutants.go)
	return n.stopReply(from, m.dir, out)
}

// onStart is the synchronized start of correction, EvTimer(TimerStart)
// (§3.3 "starts at a pre-specified moment in time simultaneously on all
// processes"): a participant starts correcting; a process colored later by
// the tree starts as soon as its tree sends are queued (afterTree). Under
// an overlapped start, and the second time, it does nothing.
func (n *Node) onStart(out []core.Effect) []core.Effect {
	if n.cfg.Start != Synchronized || n.flags&fStartSeen != 0 {
		return out
	}
	n.flags |= fStartSeen
	n.uncoloredJoins() // mutant hook (mutants.go)
	if n.flags&fParticipant != 0 && n.flags&fStarted == 0 {
		out = n.start(out)
	}
	return out
}

// onSendSlot is EvTimer(TimerSendSlot), the process's send port being free:
// during Corrected Gossip's dissemination the next gossip message
// (gossip.go); otherwise the next correction message (sendNext). The first
// slot after an overlapped participant's tree sends starts its correction
// (§3.3 "starts correction immediately after the dissemination phase"). A
// slot that was not armed is an error.
func (n *Node) onSendSlot(out []core.Effect) ([]core.Effect, error) {
	if n.flags&fSlotArmed == 0 {
		return out, fmt.Errorf("correction: send slot timer not armed")
	}
	n.flags &^= fSlotArmed
	if n.flags&fStarted == 0 && n.cfg.Gossip != nil {
		return n.sendGossip(out), nil // the gossip phase (gossip.go)
	}
	n.flags |= fStarted // overlapped: the tree sends are done
	return n.sendNext(out), nil
}

// onDelay is EvTimer(TimerDelay), the end of delayed correction's wait
// (§3.3 "After a delay, a process expects to receive a correction message
// from the right. If no message has been received, the process starts
// sending messages to the right until a message from the right eventually
// arrives."): with nothing heard from the right, the right direction opens
// to distance P-1 and the process asks for a send slot. A delay that was
// not armed is an error.
func (n *Node) onDelay(out []core.Effect) ([]core.Effect, error) {
	if n.flags&fDelayArmed == 0 {
		return out, fmt.Errorf("correction: delay timer not armed")
	}
	n.flags = n.flags&^fDelayArmed | fDelayDone
	if n.recvR == 0 {
		n.limR = n.p() - 1
		out = n.armSlot(out)
	}
	return out, nil
}
