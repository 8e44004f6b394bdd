package dgrp

import "github.com/ftkernel/ftkernel/internal/mutant"

// The mutants: deliberately broken variants, each a minimal change to one
// rule, for testing that a checker catches them. Set Config.Mutant.
const (
	// MutantReadmitWithoutConsensus makes the leader re-admit a process
	// on a READMIT_REQ by sending DECIDE to everyone, without a consensus
	// (readmit; P-DGRP-3).
	MutantReadmitWithoutConsensus = mutant.Name("readmit-without-consensus")
	// MutantRemoveOnlyIfAll removes a process at the barrier only when
	// every other member tested it non-recommended in the round (the
	// intersection of the negative results instead of their union;
	// P-DGRP-2).
	MutantRemoveOnlyIfAll = mutant.Name("remove-only-if-all")
	// MutantNoEventsBroadcast makes a tester keep its detections to itself:
	// its EVENTS carry an empty list (closeRound; P-DGRP-1).
	MutantNoEventsBroadcast = mutant.Name("no-events-broadcast")
	// MutantDoubleIncrement applies a re-admission decision as the literal
	// text reads it, "todos os processos incrementam o valor referente ao
	// processo k", whatever counter the process holds already (AMBIGUOUS-6;
	// removal by test).
	MutantDoubleIncrement = mutant.Name("double-increment")
	// MutantRequesterProposes makes the member that observed ζ good tests
	// propose the re-admission itself instead of asking the leader (leader
	// is the lowest rank).
	MutantRequesterProposes = mutant.Name("requester-proposes")
	// MutantKeepDuplicates makes the leader start a consensus for every
	// READMIT_REQ, duplicates and stale ones included: it keeps no record of
	// the requests it took (one consensus per request). (A duplicate of a
	// request still pending is refused by Paxos itself, which does not
	// take one proposer's same command twice.)
	MutantKeepDuplicates = mutant.Name("keep-duplicates")
)

// Mutants lists every mutant.
var Mutants = []mutant.Name{MutantReadmitWithoutConsensus, MutantRemoveOnlyIfAll, MutantNoEventsBroadcast,
	MutantDoubleIncrement, MutantRequesterProposes, MutantKeepDuplicates}

func (n *Node) is(m mutant.Name) bool { return n.cfg.Mutant == m }
