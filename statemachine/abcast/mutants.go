package abcast

import "github.com/ftkernel/ftkernel/internal/mutant"

// The mutants: deliberately broken variants, each a minimal change to one
// rule, for testing that a checker catches them. Set Config.Mutant.
const (
	// MutantReuseNumber makes the sequencer (UB, BB) give its second
	// message the number it gave the first (assign): members that learn
	// the two in different orders deliver different messages at that
	// position (Agreement).
	MutantReuseNumber = mutant.Name("reuse-number")
	// MutantDeliverBeforeDecision makes a member of the consensus variant
	// deliver the messages it received, in arrival order, as soon as it
	// holds K of them, before any consensus decided their batch (Total
	// order).
	MutantDeliverBeforeDecision = mutant.Name("deliver-before-decision")
	// MutantDeliverOnPayload makes a BB member deliver a message when its
	// payload arrives, without waiting for the sequencer's number (Total
	// order).
	MutantDeliverOnPayload = mutant.Name("deliver-on-payload")
	// MutantBatchArrivalOrder makes a member deliver a decided batch in
	// the order it received the batch's messages (those it did not receive
	// last), instead of the deterministic (origin, seq) order (Total
	// order).
	MutantBatchArrivalOrder = mutant.Name("batch-arrival-order")
	// MutantBatchOverlap makes the coordinator leave the first message of
	// every batch of two or more unmarked, so that it is proposed again in
	// a later batch and delivered twice (Integrity).
	MutantBatchOverlap = mutant.Name("batch-overlap")
	// MutantWaitFullBatch removes the end-of-round rule: the coordinator
	// proposes only full batches of K, so the last messages of a round
	// whose count K does not divide (a member crashed) are never
	// delivered (Validity).
	MutantWaitFullBatch = mutant.Name("wait-full-batch")
)

// Mutants lists every mutant.
var Mutants = []mutant.Name{MutantReuseNumber, MutantDeliverBeforeDecision, MutantDeliverOnPayload,
	MutantBatchArrivalOrder, MutantBatchOverlap, MutantWaitFullBatch}

func (n *Node) is(m mutant.Name) bool { return n.cfg.Mutant == m }
