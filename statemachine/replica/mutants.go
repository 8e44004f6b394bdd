package replica

import (
	"fmt"

	"github.com/ftkernel/ftkernel/internal/mutant"
)

// The mutants: deliberately broken variants, each one changed hook of the
// correct protocol (hooks below), for testing that the checker catches
// them. Set Config.Mutant.
const (
	// MutantNonMasterSends: every replica sends as if it were the master
	// (no sending agreement); duplicates are discarded by the receivers,
	// but each logical send costs |dst|·|src| DATA.
	MutantNonMasterSends = mutant.Name("non-master-sends")
	// MutantCommitBeforeSend: the master commits before it sends DATA; if
	// it crashes in between, the other replicas have dropped the message
	// from their backup and nobody re-sends it.
	MutantCommitBeforeSend = mutant.Name("commit-before-send")
	// MutantHistoryNotConsulted: a DATA is queued even when its MID is in
	// the history table (duplicates from a re-sending new master are
	// delivered twice).
	MutantHistoryNotConsulted = mutant.Name("history-not-consulted")
	// MutantNoBackupResend: a new master does not re-send its backup.
	MutantNoBackupResend = mutant.Name("no-backup-resend")
	// MutantArrivalOrderDelivery: Recv delivers the first matching message
	// to arrive, not the one of smallest MID.
	MutantArrivalOrderDelivery = mutant.Name("arrival-order-delivery")
	// MutantReplicaClock: the MID's time is the replica's clock, incremented
	// at each send or receive (§4.2 literally), and a Recv delivers the
	// smallest matching MID in the queue.
	MutantReplicaClock = mutant.Name("replica-clock")
	// MutantMIDWithoutTime: the MID's logical time is always 0, so two
	// sends with the same (comm, src, dst, tag) share a MID.
	MutantMIDWithoutTime = mutant.Name("mid-without-time")
	// MutantHistoryAtDelivery: a MID enters the history when delivered,
	// not when it arrives (the other reading of §4.2), so a duplicate that
	// arrives while the original is queued is queued too.
	MutantHistoryAtDelivery = mutant.Name("history-at-delivery")
	// MutantNoLogRecommit: a new master re-sends its backup but does not
	// re-commit its log (the paper's text, literally).
	MutantNoLogRecommit = mutant.Name("no-log-recommit")
	// MutantResendOwnMID: a new master re-sends its backup under MIDs of
	// its own, the communicator field set to its replica index (as if the
	// re-send opened a new context); a receiver that already has the
	// original cannot recognise the re-send, and one that has only the
	// re-send delivers a message the others never deliver. Breaks
	// agreement (the receivers' delivered MIDs differ; the payloads are
	// the same, so the outputs agree).
	MutantResendOwnMID = mutant.Name("resend-own-mid")
	// MutantLiteralReception: §4.2's reception rule read literally with
	// per-channel clocks: a MID enters the history when delivered ("MIDs
	// stored earlier") and a Recv extracts the smallest matching MID in the
	// queue, without waiting for the next of its channel. A duplicate that
	// arrives while the original is queued is then delivered at the next
	// Recv on that channel. Breaks integrity. It turns off both of the
	// machine's duplicate filters (history at arrival, in-sequence
	// delivery): with either one on, no MID is ever delivered twice
	// (MutantHistoryAtDelivery, MutantHistoryNotConsulted).
	MutantLiteralReception = mutant.Name("literal-reception")
	// MutantRecvIgnoresSource: a Recv with an explicit source matches a
	// message from any source (the source is not compared, as if every
	// receive were ANY_SOURCE). Two replicas of a receiver may then take
	// two racing messages in different orders. Breaks total order; with
	// gather-sum the sum, hence every output, is unchanged.
	MutantRecvIgnoresSource = mutant.Name("recv-ignores-source")
	// MutantAnyTagMIDOrder: a Recv(src, ANY_TAG) takes the smallest MID
	// among the next messages of src's channels (the MID order, which
	// compares tags before times), not the earliest message src sent:
	// MPI's non-overtaking rule is broken even without replication
	// (any-tag-diff outputs 2 − 1 instead of 1 − 2). Breaks equivalence.
	MutantAnyTagMIDOrder = mutant.Name("any-tag-mid-order")
	// MutantMIDOrderIgnoresDst: the replica's MID order (its backup, log
	// and history tables, and the smallest-MID choice of a Recv) compares
	// (comm, src, tag, time), not the destination. Two sends of one
	// source with the same tag and time to different destinations (each
	// channel's first message, say) are then one key: a replica backing
	// up the second overwrites the first, a COMMIT of one removes the
	// backup entry of the other, and a log lookup may miss. After a master
	// failover a destination's message is never re-sent (breaks
	// validity); without one, a replica that missed a logged MID backs
	// the message up and keeps it (breaks backup-drained).
	MutantMIDOrderIgnoresDst = mutant.Name("mid-order-ignores-dst")
)

// Mutants lists every mutant of this package.
var Mutants = []mutant.Name{
	MutantNonMasterSends,
	MutantCommitBeforeSend,
	MutantHistoryNotConsulted,
	MutantNoBackupResend,
	MutantArrivalOrderDelivery,
	MutantMIDWithoutTime,
	MutantReplicaClock,
	MutantHistoryAtDelivery,
	MutantNoLogRecommit,
	MutantResendOwnMID,
	MutantLiteralReception,
	MutantRecvIgnoresSource,
	MutantAnyTagMIDOrder,
	MutantMIDOrderIgnoresDst,
}

// hooks are the points where a mutant differs from the protocol.
type hooks struct {
	// midTime is the logical time n puts in the MID of its next send to
	// (dst, tag).
	midTime func(n *Node, dst, tag int32) uint64
	// sends reports whether n sends (rather than backs up) at a Send.
	sends func(n *Node) bool
	// order arranges a send's DATA and COMMIT messages.
	order func(data, commits []pending) []pending
	// duplicate reports whether an arriving MID is discarded.
	duplicate func(n *Node, m MID) bool
	// historyAtArrival: the MID enters the history on arrival (else on
	// delivery).
	historyAtArrival bool
	// pick chooses the index of the queued message a Recv delivers, among
	// those that match (-1: none is deliverable).
	pick func(n *Node, in Instr, match func(entry) bool) int
	// takeOver is what a replica does when it becomes master.
	takeOver func(n *Node)
	// resendMID is the MID under which a new master re-sends the backup
	// entry of MID m.
	resendMID func(n *Node, m MID) MID
	// matches reports whether queued message e matches instruction in =
	// Recv(src, tag).
	matches func(in Instr, e entry) bool
	// compare is the MID order of n's tables and of the smallest-MID
	// choice.
	compare midOrder
}

func correct() hooks {
	return hooks{
		midTime:          func(n *Node, dst, tag int32) uint64 { return n.sendSeq.get(dst, tag) },
		sends:            func(n *Node) bool { return n.master(n.lp) == n.self },
		order:            func(data, commits []pending) []pending { return append(data, commits...) },
		duplicate:        func(n *Node, m MID) bool { return n.history.has(m, n.h.compare) },
		historyAtArrival: true,
		pick:             nextInSequence,
		takeOver:         func(n *Node) { n.resendBackup(); n.recommitLog() },
		resendMID:        func(_ *Node, m MID) MID { return m },
		matches:          matchesRecv,
		compare:          MID.Compare,
	}
}

// matchesRecv is MPI matching: the message's source and tag are those of
// in, or in's are ANY_SOURCE / ANY_TAG.
func matchesRecv(in Instr, e entry) bool {
	return (in.Peer == Any || int(e.MID.Src) == in.Peer) && (in.Tag == Any || int(e.MID.Tag) == in.Tag)
}

// nextInSequence is the index of the queued message of smallest MID among
// those that match in and are the next of their channel, and, for an
// ANY_TAG receive, the earliest message of their source still pending
// (nonOvertaking).
func nextInSequence(n *Node, in Instr, match func(entry) bool) int {
	return smallestMID(n.queue, n.h.compare, func(e entry) bool {
		return match(e) && e.MID.Tick == n.recvSeq.get(e.MID.Src, e.MID.Tag) && (in.Tag != Any || n.nonOvertaking(e.MID))
	})
}

// channelHeads is the index of the queued message of smallest MID among
// those that match and are the next of their channel, whatever was sent
// before them on other tags (MutantAnyTagMIDOrder).
func channelHeads(n *Node, _ Instr, match func(entry) bool) int {
	return smallestMID(n.queue, n.h.compare, func(e entry) bool {
		return match(e) && e.MID.Tick == n.recvSeq.get(e.MID.Src, e.MID.Tag)
	})
}

// smallestMID is the index of the matching queued message of smallest MID
// in order.
func smallestMID(queue []entry, order midOrder, match func(entry) bool) int {
	best := -1
	for i, e := range queue {
		if match(e) && (best < 0 || order(e.MID, queue[best].MID) < 0) {
			best = i
		}
	}
	return best
}

// hooksFor returns the hooks of mutant m (the protocol's for mutant.None).
func hooksFor(m mutant.Name) (*hooks, error) {
	h := correct()
	switch m {
	case mutant.None:
	case MutantNonMasterSends:
		h.sends = func(*Node) bool { return true }
	case MutantCommitBeforeSend:
		h.order = func(data, commits []pending) []pending { return append(commits, data...) }
	case MutantHistoryNotConsulted:
		h.duplicate = func(*Node, MID) bool { return false }
	case MutantNoBackupResend:
		h.takeOver = func(n *Node) { n.recommitLog() }
	case MutantArrivalOrderDelivery:
		h.pick = func(n *Node, _ Instr, match func(entry) bool) int {
			for i, e := range n.queue {
				if match(e) {
					return i
				}
			}
			return -1
		}
	case MutantMIDWithoutTime:
		h.midTime = func(*Node, int32, int32) uint64 { return 0 }
	case MutantReplicaClock:
		h.midTime = func(n *Node, _, _ int32) uint64 { return n.tick }
		h.pick = func(n *Node, _ Instr, match func(entry) bool) int { return smallestMID(n.queue, n.h.compare, match) }
	case MutantHistoryAtDelivery:
		h.historyAtArrival = false
	case MutantNoLogRecommit:
		h.takeOver = func(n *Node) { n.resendBackup() }
	case MutantResendOwnMID:
		h.resendMID = func(n *Node, m MID) MID { m.Comm = uint32(n.idx); return m }
	case MutantLiteralReception:
		h.historyAtArrival = false
		h.pick = func(n *Node, _ Instr, match func(entry) bool) int { return smallestMID(n.queue, n.h.compare, match) }
	case MutantRecvIgnoresSource:
		h.matches = func(in Instr, e entry) bool { return in.Tag == Any || int(e.MID.Tag) == in.Tag }
	case MutantAnyTagMIDOrder:
		h.pick = channelHeads
	case MutantMIDOrderIgnoresDst:
		h.compare = func(a, b MID) int { a.Dst, b.Dst = 0, 0; return a.Compare(b) }
	default:
		return nil, fmt.Errorf("replica: unknown mutant %q", m)
	}
	return &h, nil
}
