package era

import "github.com/ftkernel/ftkernel/internal/mutant"

// The mutants: deliberately broken variants, each a minimal change to one
// rule, for testing that a checker catches them. Set Config.Mutant.
const (
	// MutantNoGrandchildren omits the second rule of Part 4: a root that
	// discovers a child dead does not send RESULTREQUEST to its
	// grandchildren, which may hold an earlier root's decision.
	MutantNoGrandchildren = mutant.Name("no-grandchildren")
	// MutantEarlyRootDecision lets a root decide before its children
	// contributed: DC checks only {p} ⊆ Contributed at the root.
	MutantEarlyRootDecision = mutant.Name("early-root-decision")
	// MutantDownFromAnyone accepts DOWN from a process that is not the
	// parent (Rule Recv(DOWN) drops q = Parent(S_p, p)).
	MutantDownFromAnyone = mutant.Name("down-from-anyone")
	// MutantNoMarkElders skips "forall r < q do S_p[r] ← dead" in Rule
	// Recv(RESULTREQUEST).
	MutantNoMarkElders = mutant.Name("no-mark-elders")
	// MutantRecordInsteadOfUp makes a broadcasting process answer
	// RESULTREQUEST by recording the requester instead of re-sending its
	// contribution UP.
	MutantRecordInsteadOfUp = mutant.Name("rr-record-instead-of-up")
	// MutantDecisionIgnoresRequests makes Decision send DOWN to the
	// children only, not to RequestedResult.
	MutantDecisionIgnoresRequests = mutant.Name("decision-ignores-requests")
	// MutantNoUpToNewParent omits the non-root branch of Part 4's first
	// rule: a process whose parent died does not send UP to its new parent.
	MutantNoUpToNewParent = mutant.Name("no-up-to-new-parent")
	// MutantUpNotRemembered is Rule Recv(UP) exactly as the paper's
	// pseudocode: Status is tested before Result, and an UP from a process
	// that is not a child in S_p is not remembered (see recvUp).
	MutantUpNotRemembered = mutant.Name("up-not-remembered")
	// MutantRootIgnoresDown is Rule Recv(DOWN) exactly as the paper's
	// pseudocode: a root ignores the DOWN its children send in answer to
	// its RESULTREQUEST (see recvDown).
	MutantRootIgnoresDown = mutant.Name("root-ignores-down")
	// MutantMarkEldersSilently is Rule Recv(RESULTREQUEST) exactly as the
	// paper's pseudocode: ranks r < q are marked dead without running the
	// rule of Part 4 for them (see recvResultRequest).
	MutantMarkEldersSilently = mutant.Name("mark-elders-silently")
	// MutantGCDropsResult makes the garbage collection of §3 reclaim
	// Result too, which the paper forbids: "the result of the agreement
	// itself ... can be requested by another participant long after the
	// result was locally returned and must be kept" (Theorem 1).
	MutantGCDropsResult = mutant.Name("gc-drops-result")
	// MutantUpOverwrites makes Rule Recv(UP) assign Current ← v instead of
	// Current ← F(Current, v): a parent forgets its own and its other
	// children's contributions (Theorem 4, Participation).
	MutantUpOverwrites = mutant.Name("up-overwrites")
)

// Mutants lists every mutant of this package.
var Mutants = []mutant.Name{
	MutantNoGrandchildren,
	MutantEarlyRootDecision,
	MutantDownFromAnyone,
	MutantNoMarkElders,
	MutantRecordInsteadOfUp,
	MutantDecisionIgnoresRequests,
	MutantNoUpToNewParent,
	MutantUpNotRemembered,
	MutantRootIgnoresDown,
	MutantMarkEldersSilently,
	MutantGCDropsResult,
	MutantUpOverwrites,
}
