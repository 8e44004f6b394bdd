package correction

import (
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Mutant names (internal/mutant), deliberately broken variants for tests.
// Each is one small change made by a hook below, called from the rule it
// breaks (tree.go tests Tree.Mutant for MutantKaryHeapOrder); with the name
// empty every hook is the identity, so each rule reads as the paper's.
const (
	// MutantCheckedStopEarly: checked correction stops a direction after
	// the first correction message from that direction, whether or not it
	// has sent to that process yet.
	MutantCheckedStopEarly mutant.Name = "checked-stop-on-first-message"
	// MutantKaryHeapOrder: the k-ary tree formula uses heap order (children
	// r·k+1 … r·k+k): still a spanning tree, no longer interleaved.
	MutantKaryHeapOrder mutant.Name = "kary-heap-order"
	// MutantOpportunisticLeftOnly: opportunistic correction sends only to
	// the left.
	MutantOpportunisticLeftOnly mutant.Name = "opportunistic-left-only"
	// MutantUncoloredCorrects: at the synchronized start a process that was
	// never colored takes part in correction anyway, sending the value it
	// holds (none, 0). Breaks integrity: a message from an uncolored
	// process.
	MutantUncoloredCorrects mutant.Name = "uncolored-corrects"
	// MutantRelayStaleValue: a process colored by a message builds the
	// messages it relays from the value it held before that message (0),
	// while delivering the right one. Breaks payload at the next hop.
	MutantRelayStaleValue mutant.Name = "relay-stale-value"
	// MutantRedeliverOnCorrection: only tree messages are masked once a
	// process is colored; a colored process delivers again on every later
	// correction message. Breaks no-duplicates.
	MutantRedeliverOnCorrection mutant.Name = "redeliver-on-correction"
	// MutantOpportunisticWraps: (optimized) opportunistic correction caps
	// the right-hand distance at P instead of P-1, an off-by-one on the
	// ring: distance P, the sender itself, wraps around to distance 1
	// (ringDist). With d ≥ P every participant sends its right neighbour a
	// second message: finite, but one over the Termination bound
	// |children| + 2(P-1).
	MutantOpportunisticWraps mutant.Name = "opportunistic-wraps-ring"
	// MutantColoredSends: a process colored by a correction message acts
	// as one colored by the tree: it sends its tree messages (at once,
	// whatever the start and Config.Early) and takes part in correction.
	// Breaks §3.1/§3.3 (a process colored during correction sends no
	// correction message; with EarlySilent, nothing).
	MutantColoredSends mutant.Name = "correction-colored-sends"
	// MutantOptimizedMirror: optimized opportunistic correction also
	// applies §3.3's rule mirrored, to a message from the left (as the
	// authors' simulator flogsim does): two participants less than d apart
	// that hear from each other each count on the other for the same
	// processes, which neither sends to (narrowOptimized). Breaks the
	// guarantee that optimized correction colors all that opportunistic
	// correction colors (models/correction CheckCovers).
	MutantOptimizedMirror mutant.Name = "optimized-mirror"
	// MutantDelayedReplyAny: in delayed correction a process colored by a
	// correction message from the left sends the stop reply too (stopReply
	// is a participant's), so a sender crossing a gap stops at the first
	// process it colors. Breaks non-faulty liveness of delayed correction.
	MutantDelayedReplyAny mutant.Name = "delayed-reply-by-anyone"
)

// Mutants lists the package's mutants that exhaustive checking catches
// (models/correction pins each to the property that does).
var Mutants = []mutant.Name{MutantCheckedStopEarly, MutantKaryHeapOrder, MutantOpportunisticLeftOnly,
	MutantUncoloredCorrects, MutantRelayStaleValue, MutantRedeliverOnCorrection, MutantOpportunisticWraps,
	MutantColoredSends}

// LogPMutants show only under LogP timing, where `ftcheck simulate`'s
// guarantee checks catch them (models/correction
// TestGuaranteeChecksCatchMutants), not in the exhaustive search's small
// worlds.
var LogPMutants = []mutant.Name{MutantOptimizedMirror, MutantDelayedReplyAny}

// replyAny is MutantDelayedReplyAny's hook on a process colored by a
// correction message (onCorrection): it answers a message from the left
// as a participant would (stopReply).
func (n *Node) replyAny(from core.Rank, dir Dir, out []core.Effect) []core.Effect {
	if n.cfg.Mutant == MutantDelayedReplyAny && n.cfg.Correction == Delayed && dir == Right {
		out = append(out, core.Send(from, &n.msgs.left)) // mutant
	}
	return out
}

// mirrorOptimized is MutantOptimizedMirror's hook on a message from the
// left at distance δ < d (narrowOptimized): stop sending left, skip the
// right distances to d - δ + 1.
func (n *Node) mirrorOptimized(delta int32) {
	if n.cfg.Mutant != MutantOptimizedMirror {
		return
	}
	d := int32(n.cfg.Distance)
	n.limL = min(n.limL, n.nextL-1) // mutant
	n.nextR = max(n.nextR, d-delta+1)
}

// coloredSends is MutantColoredSends's hook on a process colored by a
// correction message: a full participant, as if colored by the tree.
func (n *Node) coloredSends(out []core.Effect) []core.Effect {
	n.flags |= fParticipant // mutant
	out = n.sendTree(out)
	return n.afterTree(out)
}

// uncoloredJoins is MutantUncoloredCorrects's hook at the synchronized
// start.
func (n *Node) uncoloredJoins() {
	if n.cfg.Mutant == MutantUncoloredCorrects && n.via == Uncolored {
		n.flags |= fParticipant
		n.msgs = newMsgSet(n.value) // mutant: a participant that has nothing to send
	}
}

// redeliver is MutantRedeliverOnCorrection's hook on a correction message
// to a colored process.
func (n *Node) redeliver(out []core.Effect) []core.Effect {
	if n.cfg.Mutant == MutantRedeliverOnCorrection {
		out = append(out, core.Deliver(0, n.value)) // mutant: not masked
	}
	return out
}

// ringDist is the ring distance the correction cursor next stands for:
// next itself, except under MutantOpportunisticWraps, whose right cursor
// runs to P and wraps around (1 … P-1, then 1 again).
func (n *Node) ringDist(next int32) int32 {
	if n.cfg.Mutant == MutantOpportunisticWraps {
		return (next-1)%(n.p()-1) + 1 // mutant
	}
	return next
}

// mutateLimits is the hook on the initial correction limits (init):
// MutantOpportunisticWraps lets the right cursor run to P (ringDist wraps
// it), MutantOpportunisticLeftOnly closes the right direction.
func (n *Node) mutateLimits() {
	P := n.p()
	switch {
	case n.cfg.Correction != Opportunistic && n.cfg.Correction != OptimizedOpportunistic:
	case n.cfg.Mutant == MutantOpportunisticWraps && P > 1:
		n.limR = min(int32(n.cfg.Distance), P) // mutant: P, not P-1
	case n.cfg.Mutant == MutantOpportunisticLeftOnly:
		n.limR = 0 // mutant
	}
}

// stopEarly is MutantCheckedStopEarly's hook in the checked stop rule
// (stopped): any message heard from a side stops it.
func (n *Node) stopEarly() bool { return n.cfg.Mutant == MutantCheckedStopEarly }

// relayed is the message set a process colored by cause v relays:
// s itself, except under MutantRelayStaleValue, where a process colored by
// a message relays the value it held before (none, 0).
func (n *Node) relayed(v Via, s *msgSet) *msgSet {
	if n.cfg.Mutant == MutantRelayStaleValue && v != ViaRoot {
		return newMsgSet(0) // mutant: relays the value held before
	}
	return s
}
