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
)

// Mutants lists every mutant of the package.
var Mutants = []mutant.Name{
	MutantAcceptLowerBallot,
	MutantIgnorePromisedValue,
	MutantForgetPromiseOnRestart,
	MutantLearnOnMinority,
}

func (n *Node) acceptsLowerBallot() bool    { return n.cfg.Mutant == MutantAcceptLowerBallot }
func (n *Node) ignoresPromisedValues() bool { return n.cfg.Mutant == MutantIgnorePromisedValue }
func (n *Node) forgetsPromise() bool        { return n.cfg.Mutant == MutantForgetPromiseOnRestart }

// learnQuorum is the number of votes at one ballot a learner decides on:
// Config.Quorum, or f (at least 1) under MutantLearnOnMinority.
func (n *Node) learnQuorum() int {
	if n.cfg.Mutant == MutantLearnOnMinority {
		return max(1, (len(n.cfg.Acceptors)-1)/2)
	}
	return n.cfg.Quorum()
}
