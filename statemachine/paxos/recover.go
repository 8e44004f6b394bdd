package paxos

import (
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

var _ core.Recoverable = (*Node)(nil)

// Recover is the node as it restarts after a crash (the crash-recovery
// model of §2.1.2: "O algoritmo assume o modelo de falhas de parada com
// recuperação"): what is on stable storage survives, everything else
// returns to its initial value. The receiver is unchanged.
//
// Stable storage holds the acceptor's promised ballot and its votes (PMS:
// "an acceptor must remember this information even if it fails and then
// restarts"), the highest ballot the proposer has tried (PMS: "a proposer
// … must remember the highest-numbered proposal it has tried to issue";
// see startPhase1), and the learner's log of delivered decisions.
//
// Ambiguity: the thesis names no stable state. The learner's log is
// stable because the application has consumed it: a learner that forgot
// it would deliver the same instances again (a process deciding twice).
// Volatile: the coordinator's state, the proposer's pending proposals
// (their calls die with the process), the learner's tallies, the
// suspicions, the view of the coordinator (back to Proposers[0]) and the
// retransmission timer. A recovered proposer that coordinates again picks
// a ballot above its own promise; a NACK lifts it above any other.
//
// Recover implements core.Recoverable; the runtime then steps the new node
// with core.Restart() (see restart).
func (n *Node) Recover() core.Machine {
	r := fresh(n.self, n.cfg)
	r.promised = n.promised
	if n.forgetsPromise() { // mutant hook
		r.promised = 0
	}
	r.tried = n.tried
	r.accepted = slices.Clone(n.accepted)
	if !n.forgetsLog() { // mutant hook
		r.log = slices.Clone(n.log)
	}
	return r
}

// restart is the first step after Recover (core.Restart). A proposer
// that is the coordinator of its own view (Proposers[0] after a restart)
// resumes coordinating: phase 1 at once, since its peers may never have
// been told it crashed and still count on it to finish and spread what it
// had chosen; if another took over meanwhile, that one's NACK makes it
// yield. Any other learner tells the coordinator of its view how far its
// log goes (LEARNED), so that the coordinator sends what it missed while
// down. The proposals of the crashed incarnation died with it.
//
// A peer that suspected this node hears of the restart as core.Recovered
// and stops suspecting it: a coordinator then counts it again among the
// learners it catches up. Views of the coordinator do not move back to a
// restarted proposer; they move on suspicions, NACKs and Lead only.
func (n *Node) restart(out []core.Effect) []core.Effect {
	switch {
	case n.r.proposer && n.leader == n.self:
		out = n.startPhase1(nil, out)
	case n.r.learner && n.leader != core.NoRank:
		out = append(out, core.Send(n.leader, Learned{Next: uint64(len(n.log))}))
	}
	return out
}
