package paxos

import (
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// Recover is the node as it restarts after a crash (the crash-recovery
// model of §2.1.2: "O algoritmo assume o modelo de falhas de parada com
// recuperação"): what is on stable storage survives, everything else
// returns to its initial value. The receiver is unchanged.
//
// Stable storage holds the acceptor's promised ballot and its votes (PMS:
// "an acceptor must remember this information even if it fails and then
// restarts"), and the learner's log of delivered decisions.
//
// Ambiguity: the thesis names no stable state. The learner's log is
// stable because the application has consumed it: a learner that forgot
// it would deliver the same instances again (a process deciding twice).
// Volatile: the coordinator's state, the proposer's pending proposals
// (their calls die with the process), the learner's tallies, the
// suspicions, the view of the coordinator (back to Proposers[0]) and the
// retransmission timer. A recovered proposer that coordinates again picks
// a ballot above its own promise; a NACK lifts it above any other.
func (n *Node) Recover() core.Machine {
	r := fresh(n.self, n.cfg)
	r.promised = n.promised
	if n.forgetsPromise() { // mutant hook
		r.promised = 0
	}
	r.accepted = slices.Clone(n.accepted)
	r.log = slices.Clone(n.log)
	return r
}
