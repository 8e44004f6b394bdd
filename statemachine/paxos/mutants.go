package paxos

import "github.com/ftkernel/ftkernel/internal/mutant"

// The mutants: deliberately broken variants, each a minimal change to one
// rule, for testing that a checker catches them. Set Config.Mutant.
const (
	// MutantAcceptLowerBallot makes an acceptor accept an ACCEPT whose
	// ballot is below its promise (recvAccept), breaking the promise of
	// phase 1 (Agreement).
	MutantAcceptLowerBallot = mutant.Name("accept-lower-ballot")
	// MutantIgnorePromisedValue makes a new coordinator ignore the votes
	// reported in phase 1 (phase2): it places its own commands from the
	// first instance of the batch, where a value may have been chosen
	// (Agreement).
	MutantIgnorePromisedValue = mutant.Name("ignore-promised-value")
	// MutantForgetPromiseOnRestart leaves the promised ballot out of stable
	// storage: Recover keeps the votes but promises nothing (Agreement).
	MutantForgetPromiseOnRestart = mutant.Name("forget-promise-on-restart")
	// MutantLearnOnMinority makes a learner decide on the votes of f
	// acceptors of 2f+1 (at least one) instead of a quorum (learnVote;
	// Agreement).
	MutantLearnOnMinority = mutant.Name("learn-on-minority")
	// MutantRelabelRequest makes the coordinator place a command that
	// reached it in a REQUEST under its own rank, as if it had proposed it
	// (recvRequest): the value decided, origin and bytes, is one no
	// process proposed (Validity).
	MutantRelabelRequest = mutant.Name("relabel-request")
	// MutantDecideBeforeChosen makes a coordinator that is a learner
	// deliver a command as it places it in an instance (sendAccept),
	// before a quorum accepted it: if it crashes before the value is
	// chosen, its successor may choose another, so a crashed process
	// decided differently (Uniform agreement; without a competing
	// proposer, agreement among live processes holds while the
	// coordinator stays down).
	MutantDecideBeforeChosen = mutant.Name("decide-before-chosen")
	// MutantForgetLogOnRestart leaves the learner's log out of stable
	// storage (Recover): a restarted learner learns instance 0 … again
	// and delivers each a second time (Integrity).
	MutantForgetLogOnRestart = mutant.Name("forget-log-on-restart")
	// MutantDeliverOutOfOrder makes a learner deliver a chosen instance
	// when it is the lowest instance it holds votes for, without waiting
	// for the instances below it (deliver): votes arriving out of order
	// make it decide instance i+1 before i (In-order).
	MutantDeliverOutOfOrder = mutant.Name("deliver-out-of-order")
)

// Mutants lists every mutant of the package.
var Mutants = []mutant.Name{
	MutantAcceptLowerBallot,
	MutantIgnorePromisedValue,
	MutantForgetPromiseOnRestart,
	MutantLearnOnMinority,
	MutantRelabelRequest,
	MutantDecideBeforeChosen,
	MutantForgetLogOnRestart,
	MutantDeliverOutOfOrder,
}

func (n *Node) acceptsLowerBallot() bool    { return n.cfg.Mutant == MutantAcceptLowerBallot }
func (n *Node) ignoresPromisedValues() bool { return n.cfg.Mutant == MutantIgnorePromisedValue }
func (n *Node) forgetsPromise() bool        { return n.cfg.Mutant == MutantForgetPromiseOnRestart }
func (n *Node) relabelsRequests() bool      { return n.cfg.Mutant == MutantRelabelRequest }
func (n *Node) decidesBeforeChosen() bool   { return n.cfg.Mutant == MutantDecideBeforeChosen }
func (n *Node) forgetsLog() bool            { return n.cfg.Mutant == MutantForgetLogOnRestart }
func (n *Node) deliversOutOfOrder() bool    { return n.cfg.Mutant == MutantDeliverOutOfOrder }

// learnQuorum is the number of votes at one ballot a learner decides on:
// Config.Quorum, or f (at least 1) under MutantLearnOnMinority.
func (n *Node) learnQuorum() int {
	if n.cfg.Mutant == MutantLearnOnMinority {
		return max(1, (len(n.cfg.Acceptors)-1)/2)
	}
	return n.cfg.Quorum()
}
