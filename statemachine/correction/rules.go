package correction

import "github.com/ftkernel/ftkernel/core"

// color colors the process with the payload of s and delivers it (§2.1:
// "the message is delivered … at most once"; every later message is
// masked). v records the cause: the root's call, a dissemination message or
// a correction message.
func (n *Node) color(v Via, s *msgSet, out []core.Effect) []core.Effect {
	n.via = v
	n.msgs = n.relayed(v, s) // mutant hook (mutants.go)
	n.value = s.tree.value
	return append(out, core.Deliver(0, n.value))
}

// disseminate is what a process colored by dissemination (or the root)
// does: it becomes a participant of correction (§3.1 "All colored
// processes send messages to their neighbors in the ring", the colored
// being those colored before correction), sends its tree messages
// (sendTree) and, when correction has started or starts with the tree
// sends, starts it (afterTree).
func (n *Node) disseminate(out []core.Effect) []core.Effect {
	n.flags |= fParticipant
	out = n.sendTree(out)
	return n.afterTree(out)
}

// sendTree sends one TREE message to each child of the process in the
// dissemination tree (§3.2), in the tree's send order (tree.go); with
// Corrected Gossip the gossip phase replaces it (gossip.go).
func (n *Node) sendTree(out []core.Effect) []core.Effect {
	if n.cfg.Gossip != nil {
		return n.startGossip(out) // gossip.go
	}
	for _, c := range n.cfg.Topology.Children(n.rank) {
		out = append(out, core.Send(c, &n.msgs.tree))
	}
	return out
}

// afterTree: a participant has queued its tree sends. Overlapped, it
// "starts correction immediately after the dissemination phase" (§3.3);
// synchronized, it starts now if the start has passed (a process colored
// by the tree after TimerStart), else at TimerStart (onStart).
//
// Ambiguity: the paper does not say what a process colored by the tree
// after the synchronized start does (in a fault-free LogP run the start
// follows the end of dissemination; in the asynchronous model a tree
// message may arrive later); it takes part in correction at once, as a
// process colored in time would.
func (n *Node) afterTree(out []core.Effect) []core.Effect {
	if n.cfg.Correction == NoCorrection {
		return out
	}
	if n.cfg.Start == Overlapped || n.flags&fStartSeen != 0 {
		return n.start(out)
	}
	return out
}

// start begins correction: the first message goes out at the next send
// slot, after the tree sends (§3.3). Synchronized, correction counts as
// started at once; overlapped, at that first slot (onSendSlot).
func (n *Node) start(out []core.Effect) []core.Effect {
	if n.cfg.Start == Synchronized {
		n.flags |= fStarted
	}
	return n.armSlot(out)
}

// armSlot asks the runtime for a send slot (TimerSendSlot), once.
func (n *Node) armSlot(out []core.Effect) []core.Effect {
	if n.flags&fSlotArmed != 0 {
		return out
	}
	n.flags |= fSlotArmed
	return append(out, core.Effect{Kind: core.EffSetTimer, Timer: TimerSendSlot})
}

// stopped is the stop rule of direction d.
//
// Checked correction (§3.1): "A process stops sending messages into a
// particular direction, once it receives a message from this direction,
// from a process it had already sent a message to." A direction sends to
// the distances 1, 2, … in order, so some sender of that side was already
// sent to exactly when the nearest one was: the direction stops once the
// farthest distance sent reaches the nearest sender heard (§3.1's example:
// 23 hears from 19 and 28 and sends until it has sent to both). Stopping
// on the first message, sent-to or not, is MutantCheckedStopEarly.
//
// Delayed correction (§3.3): the right direction stops at the first
// message heard from the right ("until a message from the right
// eventually arrives").
func (n *Node) stopped(d Dir) bool {
	switch n.cfg.Correction {
	case Checked:
		recv, next := n.recvL, n.nextL
		if d == Right {
			recv, next = n.recvR, n.nextR
		}
		if n.coverStopped() {
			return true
		}
		if recv == 0 {
			return false
		}
		return n.stopEarly() || next-1 >= recv // stopEarly: mutant hook (mutants.go)
	case Delayed:
		return d == Right && n.recvR != 0
	}
	return false
}

// coverStopped is flogsim's extra stop rule of checked correction
// (Config.CoverStop; TUD-OS/flogsim lib/phase/correction.cpp, "check if we
// reached this node from opposite direction"): both directions stop once
// the farthest distances sent to on the left and on the right add up to P
// or more. The paper has no such rule (§3.1 stops a direction only on a
// message from it).
//
// Ambiguity: §3.1 does not say what a participant that hears nothing does;
// read literally it sends on each side up to distance P-1, 2(P-1) messages,
// the second half to processes it has already sent to from the other side.
// flogsim's rule ends that as soon as the two sides together have gone
// round the ring; it cannot leave a process uncolored (every rank is at a
// distance ≤ the left reach on the left or ≤ the right reach on the right
// once they add up to P-1). Off by default: the paper's rule alone.
func (n *Node) coverStopped() bool {
	return n.cfg.CoverStop && (n.nextL-1)+(n.nextR-1) >= n.p()
}

// cutAtRoot is flogsim's send_over_root=false (Config.NoOverRoot;
// TUD-OS/flogsim lib/phase/correction.cpp): a message to the left from rank
// r would reach P-1 after rank 0, one to the right would reach 0 after
// P-1, and flogsim then closes that direction and sends the other way. As
// limits: the left direction ends at distance r (rank 0), the right one at
// distance P-1-r (rank P-1); the root corrects only to the right and P-1
// only to the left.
//
// Ambiguity: §3.1 corrects on a ring ("r-1, r+1, …" modulo P), and §3.3's
// example of optimized correction counts distances across the root;
// flogsim's stored registration (lib/phase/registered_collectives.cpp,
// commit 0483824) cuts the ring for its overlapped variants and wraps for
// its phased ones. Off by default: the ring.
func (n *Node) cutAtRoot() {
	if !n.cfg.NoOverRoot {
		return
	}
	r, P := int32(n.rank), n.p()
	n.limL = min(n.limL, r)
	n.limR = min(n.limR, P-1-r)
}

// active reports whether direction d may still send: its next distance is
// within its limit and it has not stopped.
func (n *Node) active(d Dir) bool {
	if d == Left {
		return n.nextL <= n.limL && !n.stopped(Left)
	}
	return n.nextR <= n.limR && !n.stopped(Right)
}

// sendNext sends the next correction message of a participant, one per
// send slot, alternating "to r-1, r+1, …, r-d, r+d" (§3.1), left first; a
// direction that is over leaves the turn to the other. Delayed correction
// arms its delay with its first message (§3.3 "waits out a delay after
// sending the first correction message to the left"). Another slot is
// asked for while a direction is active.
func (n *Node) sendNext(out []core.Effect) []core.Effect {
	if n.flags&fParticipant == 0 || n.cfg.Correction == NoCorrection {
		return out
	}
	aL, aR := n.active(Left), n.active(Right)
	if !aL && !aR {
		return out
	}
	P := n.p()
	if aL && (n.turn == Left || !aR) {
		to := (int32(n.rank) - n.ringDist(n.nextL) + P) % P
		n.nextL++
		n.turn = Right
		out = append(out, core.Send(core.Rank(to), &n.msgs.left))
	} else {
		to := (int32(n.rank) + n.ringDist(n.nextR)) % P
		n.nextR++
		n.turn = Left
		out = append(out, core.Send(core.Rank(to), &n.msgs.right))
	}
	if n.cfg.Correction == Delayed && n.flags&(fDelayArmed|fDelayDone) == 0 {
		n.flags |= fDelayArmed
		out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: TimerDelay, Delay: n.cfg.Delay})
	}
	if n.active(Left) || n.active(Right) {
		out = n.armSlot(out)
	}
	return out
}

// heard records the ring distance of a correction message's sender on the
// side it came from and returns it: a message sent to the Left comes from
// the receiver's right. Only the nearest sender of each side is kept; the
// stop rules (stopped) read it.
func (n *Node) heard(from core.Rank, dir Dir) int32 {
	P := n.p()
	if dir == Left {
		delta := (int32(from) - int32(n.rank) + P) % P
		if n.recvR == 0 || delta < n.recvR {
			n.recvR = delta
		}
		return delta
	}
	delta := (int32(n.rank) - int32(from) + P) % P
	if n.recvL == 0 || delta < n.recvL {
		n.recvL = delta
	}
	return delta
}

// narrowOptimized is optimized opportunistic correction (§3.3): "Given
// processes i and j, such that j - d < i < j, assume i receives a message
// from j. Process i can be sure that j also covers processes j - d, …,
// i + d with correction messages. Now, i has to send correction messages
// only to processes i - d, …, j - d - 1." With δ = j - i < d, i sends
// nothing more to the right and, to the left, skips to distance d - δ + 1.
// Distances already sent stay sent: the right limit becomes the last
// distance sent so far.
//
// Ambiguity: the paper states the rule for a sender on the right only. Its
// mirror image (a message from i to j, i on the left, makes j stop sending
// left and skip its right distances to d - δ + 1; our earlier reading, and
// the authors' simulator flogsim's) is not the same argument: each of i and
// j then counts on the other for the same processes. i stops sending right
// counting on j to cover j+1 … i+d, while j skips exactly those counting on
// i; j stops sending left counting on i to cover j-d … i-1, which i skips.
// In LogP, synchronized, both send to each other in their first slots and
// both narrow: interleaved in-order binomial tree, P = 217, L = 4, o = 2,
// d = 4, 18 % failed (models/correction TestGuaranteesOnSeeds, seed 68),
// leaves p90 and p151 uncolored where opportunistic correction colors them
// (p86 and p87, δ = 1, skip 88 … 90). So the rule is applied to messages
// from the right only, as written; on 5,000 seeded random configurations
// it then colors every process opportunistic correction colors. The mirror
// is the mutant optimized-mirror (mirrorOptimized).
func (n *Node) narrowOptimized(dir Dir, delta int32) {
	d := int32(n.cfg.Distance)
	if delta >= d {
		return
	}
	if dir != Left { // a message sent to the right: its sender is on the left
		n.mirrorOptimized(delta) // mutant hook (mutants.go)
		return
	}
	// j = i+δ covers j-d … i+d: i+1 … i+d on the right, j-d … i-1 on the left.
	n.limR = min(n.limR, n.nextR-1)
	n.nextL = max(n.nextL, d-delta+1)
}

// coloredByCorrection is the rule for a process whose first coloring
// message was a correction message. It never takes part in correction:
// §3.1 "Processes that become colored during correction do not send any
// messages", §3.3 "processes receiving early correction do not participate
// in the correction phase themselves". With an overlapped start and
// EarlyForwards it still sends the tree messages to its children, at once
// (§3.3 "After receiving an early correction, a process still sends tree
// messages to its children"); with EarlySilent it sends nothing (see
// EarlyRule for the ambiguity). Its tree message, if it arrives later, is
// a masked duplicate (onTree), so it never sends later either.
func (n *Node) coloredByCorrection(out []core.Effect) []core.Effect {
	if n.cfg.Mutant == MutantColoredSends {
		return n.coloredSends(out) // mutant hook (mutants.go)
	}
	if n.cfg.Start == Overlapped && n.cfg.Early == EarlyForwards {
		out = n.sendTree(out)
	}
	return out
}

// stopReply is delayed correction's answer (§3.3): "If a process colored by
// dissemination receives a message from the left, it immediately replies to
// stop the sender." A message from the left was sent to the Right; the
// reply goes back to the Left, and the sender, hearing from its right,
// stops (stopped).
func (n *Node) stopReply(from core.Rank, dir Dir, out []core.Effect) []core.Effect {
	if n.cfg.Correction == Delayed && dir == Right && n.flags&fParticipant != 0 {
		out = append(out, core.Send(from, &n.msgs.left))
	}
	return out
}
