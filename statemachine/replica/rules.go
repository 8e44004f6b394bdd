package replica

import (
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// sendStep is the sending agreement protocol (§4.2), for the replica that
// reaches instruction in = Send(dst, tag):
//
//	MID ← (comm, src, dst, tag, tick); tick ← tick + 1
//	if master: send DATA to every replica of dst, then COMMIT(MID) to
//	           the other replicas of src ("Once the message is sent, it
//	           notifies the other replicas … We say the master commits")
//	else:      if MID ∈ log then continue
//	           else backup[MID] ← message
//
// The MID is built "from local information only" with the clock's value
// before the increment, which gives the paper's (0,0,2,9,0), (0,0,2,9,1).
// Ambiguity: the scope of the logical time. The literal reading ("ticks are
// incremented at each send or receive") is one clock per replica; its MIDs
// to one destination have gaps, so a receiver ordering its queue by MID
// cannot tell that an earlier MID is still in flight, and after a master
// failover the new master's re-send (on another connection) can overtake
// the old master's last DATA: the receiver delivers the later MID first
// and total order fails (10 steps, FIFO, one crash: mid-example). The
// clock here is one counter per channel (comm, src, dst, tag), which gives
// the same example, and the receiver delivers the next MID of each channel
// in sequence (recvStep). The literal clock is MutantReplicaClock;
// MutantMIDWithoutTime drops the time altogether.
// Ambiguity: "send to all processes in the destination logical process" is
// read as the replicas of dst not known dead (Recovery: "not to send
// further messages to the failed process").
// Ambiguity: the literal master rule has no log lookup, so a new master
// that lags behind re-sends what the old one committed (the receivers
// discard the duplicates); that is kept.
func (n *Node) sendStep(in Instr) {
	mid := MID{Comm: 0, Src: int32(n.lp), Dst: int32(in.Peer), Tag: int32(in.Tag), Tick: n.h.midTime(n, int32(in.Peer), int32(in.Tag))}
	n.tick++
	n.sendSeq = n.sendSeq.bump(int32(in.Peer), int32(in.Tag))
	n.pc++
	if n.h.sends(n) {
		n.outbox = append(slices.Clip(n.outbox), n.transmit(entry{MID: mid, Payload: n.acc})...)
		return
	}
	if n.log.has(mid, n.h.compare) {
		return
	}
	n.backup = insertEntry(n.backup, entry{MID: mid, Payload: n.acc}, n.h.compare)
}

// transmit is the master's messages for one send: DATA to each live replica
// of the destination, ascending, then COMMIT to each other live replica of
// its own logical process (in the mutant's order under
// MutantCommitBeforeSend).
func (n *Node) transmit(e entry) []pending {
	var data, commits []pending
	for _, r := range n.live(int(e.MID.Dst)) {
		data = append(data, pending{To: r, Msg: Data(e)})
	}
	for _, r := range n.live(n.lp) {
		if r != n.self {
			commits = append(commits, pending{To: r, Msg: Commit{MID: e.MID}})
		}
	}
	return n.h.order(data, commits)
}

// recvCommit is §4.2: "When a replica receives a commit, it writes the
// message identifier in its log and if the message has been stored, it
// removes it from the backup table."
func (n *Node) recvCommit(m Commit) {
	n.log = n.log.add(m.MID, n.h.compare)
	n.backup = removeEntry(n.backup, m.MID, n.h.compare)
}

// recvData is the reception agreement protocol (§4.2): "When a message
// arrives in the message queue, the communication library compares the
// message's MID with MIDs stored earlier in the history table. If MID is a
// duplicate, the message is simply discarded", otherwise it is queued for
// the program.
// Ambiguity: the paper never removes entries from the log and history
// tables; neither does this machine (no garbage collection: both grow with
// the run, one MID per message, which bounds nothing in a finite program).
// Ambiguity: when a MID enters the history; here at arrival ("logged at
// the receiving side"), so a duplicate that arrives while the original is
// still queued is discarded too. Entering it at delivery is
// MutantHistoryAtDelivery.
func (n *Node) recvData(m Data) {
	if n.h.duplicate(n, m.MID) {
		return
	}
	if n.h.historyAtArrival {
		n.history = n.history.add(m.MID, n.h.compare)
	}
	n.queue = append(slices.Clip(n.queue), entry(m))
}

// recvStep executes instruction in = Recv(src, tag) if a queued message
// matches: "the messages could be received in any order in the receive
// queue, but the extraction from the queue to the user program would
// follow the MID order" (§4.2). With per-channel clocks (see sendStep) the
// MID order of a channel has no gaps, so the replica delivers the message
// whose time is the next of its channel, and of those that match (several
// only with ANY_SOURCE or ANY_TAG) the one of smallest MID; an ANY_TAG
// receive takes only the earliest pending message of its source
// (nonOvertaking). MutantReplicaClock and MutantLiteralReception deliver
// the smallest matching MID in the queue (the literal rule),
// MutantArrivalOrderDelivery the first to arrive, MutantAnyTagMIDOrder
// ignores the non-overtaking rule. It
// reports false, changing nothing, when none is deliverable: the replica
// waits.
func (n *Node) recvStep(in Instr, out []core.Effect) ([]core.Effect, bool) {
	match := func(e entry) bool { return n.h.matches(in, e) }
	i := n.h.pick(n, in, match)
	if i < 0 {
		return out, false
	}
	e := n.queue[i]
	n.queue = slices.Delete(slices.Clone(n.queue), i, i+1)
	if !n.h.historyAtArrival {
		n.history = n.history.add(e.MID, n.h.compare)
	}
	n.acc = in.Fn.Apply(n.acc, e.Payload)
	n.tick++
	n.recvSeq = n.recvSeq.bump(e.MID.Src, e.MID.Tag)
	n.pc++
	out = append(out, core.Deliver(n.delivered, Delivery(e)))
	n.delivered++
	return out, true
}

// nonOvertaking reports whether the message of MID m (the next of its
// channel) is the earliest message its source sent to this replica's
// logical process that is still undelivered: every send that precedes it
// in the source's program, on any tag, has been delivered. A
// Recv(src, ANY_TAG) takes only such a message. This is MPI's
// non-overtaking rule (MPI standard, §3.5 "Order": "If a sender sends two
// messages in succession to the same destination, and both match the same
// receive, then this operation cannot receive the second message if the
// first one is still pending"), which the unreplicated reference obeys.
//
// Ambiguity: §4.2 extracts queued messages "in the MID order", and §4.3
// excludes ANY_TAG from the total-order claim. Read literally the MID
// order compares tags before times, so a Recv(src, ANY_TAG) holding a
// tag-5 and a later tag-1 message of src takes the tag-1 one: the output
// differs from MPI's even without replication or failure, and replicas
// that hold different subsets disagree. That reading is
// MutantAnyTagMIDOrder. With a fixed source, MPI's rule leaves no choice,
// so the match is the same on every replica and the §4.3 properties hold
// for ANY_TAG receives (only ANY_SOURCE stays a real choice).
// Ambiguity: the per-source sending order is not in the paper's MID. A
// real implementation would carry a per-(source, destination) sequence
// number in each DATA; here programs are straight-line, so the position of
// a MID among its source's sends to this process is a function of the MID
// and of the source's program, which every replica knows, and the
// receiver computes it (no field is added to the message).
func (n *Node) nonOvertaking(m MID) bool {
	var earlier counters // per (src, tag): sends of src to lp before m
	for _, in := range n.cfg.Programs[m.Src] {
		if in.Op != OpSend || in.Peer != n.lp {
			continue
		}
		tag := int32(in.Tag)
		if tag == m.Tag && earlier.get(m.Src, tag) == m.Tick {
			for _, c := range earlier {
				if n.recvSeq.get(c.Peer, c.Tag) < c.N {
					return false
				}
			}
			return true
		}
		earlier = earlier.bump(m.Src, tag)
	}
	// Not a send of the program (only under a MID mutant): no order to
	// keep.
	return true
}

// suspect is the recovery rule (§4.2) on the failure detector's report
// that replica q (of logical process j) is dead: "If the failed process is
// a replica, each other process simply updates the information about the
// corresponding logical process, not to send further messages to the
// failed process. If the failed process is the master, a new master is
// elected among its replicas. This new master checks its backup. If it is
// not empty … it starts over the multiple send operations."
//
// Ambiguity: the election rule is not given. The new master is the live
// replica of lowest index in the local view: every replica computes it
// from its own failure notifications, with no message, and with a perfect
// detector two replicas never both believe themselves master (a replica
// takes over only after its lower-indexed peers are reported dead).
// Ambiguity: messages of the outbox addressed to q are dropped (q will
// never receive them).
// Ambiguity: whether the new master commits its re-sends; it does, as any
// master commits its sends, so that the other replicas empty their backup
// tables. Ambiguity: the old master's commits may have reached only some
// replicas (it crashed between two COMMITs); those that missed one keep
// the entry in their backup forever, since the new master, which may have
// got that commit, has nothing to re-send. So a new master also commits
// every MID of its log (not in the paper; MutantNoLogRecommit is the
// literal reading and leaks backup entries with three replicas).
func (n *Node) suspect(q core.Rank) {
	if n.dead.Has(q) {
		return
	}
	j, _, _ := n.cfg.Layout.Of(q)
	wasMaster := n.master(j) == q
	n.dead = n.dead.Clone()
	n.dead.Add(q)
	n.outbox = slices.DeleteFunc(slices.Clone(n.outbox), func(p pending) bool { return p.To == q })
	if j != n.lp || !wasMaster || n.master(j) != n.self {
		return
	}
	n.h.takeOver(n)
}

// resendBackup is the new master's "starts over the multiple send
// operations" for every backup entry, in MID order, each followed by its
// commit; the backup is then empty.
func (n *Node) resendBackup() {
	for _, e := range n.backup {
		e.MID = n.h.resendMID(n, e.MID)
		n.outbox = append(slices.Clip(n.outbox), n.transmit(e)...)
	}
	n.backup = nil
}

// recommitLog sends COMMIT for every MID of the log to the other live
// replicas (see suspect).
func (n *Node) recommitLog() {
	for _, m := range n.log {
		for _, r := range n.live(n.lp) {
			if r != n.self {
				n.outbox = append(slices.Clip(n.outbox), pending{To: r, Msg: Commit{MID: m}})
			}
		}
	}
}

// insertEntry returns entries (sorted by MID in order) with e, replacing an
// entry of an equal MID.
func insertEntry(s []entry, e entry, order midOrder) []entry {
	i, found := slices.BinarySearchFunc(s, e.MID, func(x entry, m MID) int { return order(x.MID, m) })
	out := slices.Clone(s)
	if found {
		out[i] = e
		return out
	}
	return slices.Insert(out, i, e)
}

// removeEntry returns entries (sorted by MID in order) without the one of a
// MID equal to m.
func removeEntry(s []entry, m MID, order midOrder) []entry {
	i, found := slices.BinarySearchFunc(s, m, func(x entry, m MID) int { return order(x.MID, m) })
	if !found {
		return s
	}
	return slices.Delete(slices.Clone(s), i, i+1)
}
