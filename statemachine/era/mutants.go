package era

import (
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

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
	// MutantXYRepWrongParent makes a node representative of an X/Y tree
	// (§3) take its initial parent from the Y rule applied to its global
	// rank (the intra-node tree stretched across nodes) instead of the X
	// tree over the representatives, in Parent only: Children still
	// follows the X tree, so the X parent waits for an UP that goes
	// elsewhere (Theorem 3, Termination; N = 4, bin/bin, node size 2: p2
	// sends UP to p1 while p0 waits for it).
	MutantXYRepWrongParent = mutant.Name("xy-rep-wrong-parent")
	// MutantRebalanceLocalView rebuilds the tree of agreement a ≥ 1 over
	// the process's own detector view S_p instead of the failures agreed
	// in agreement a-1 (§3, Tree Rebalancing): processes that discovered
	// different failures build different trees (Theorem 2, Agreement, or
	// Theorem 3, Termination).
	MutantRebalanceLocalView = mutant.Name("rebalance-local-view")
	// MutantULFMUnionAcked makes the node combine MPIX_Comm_agree
	// contributions with the union of the acknowledged failures instead of
	// their intersection (§1.1: a failure counts as acknowledged only when
	// "acknowledged by all participants"), in procedure Agreement and Rule
	// Recv(UP): a decision can then report success without the contribution
	// of a failure one participant never acknowledged.
	MutantULFMUnionAcked = mutant.Name("ulfm-union-acked")
	// MutantResendUpFirstOnly makes Part 4's first rule re-send UP to the
	// new parent for the first agreement it applies to only: a process
	// broadcasting in two agreements whose parent dies re-sends its
	// contribution for the lower one and leaves the other waiting
	// (Theorem 3, Termination, of the second agreement alone).
	MutantResendUpFirstOnly = mutant.Name("resend-up-first-agreement-only")
	// MutantRequestEldersOnly is Rule Recv(RESULTREQUEST) from q with the
	// paper's marking "forall r < q" alone: the initial ancestors of p above
	// q are not marked dead, so a DOWN that one of them sent before dying
	// can reach p after p answered q with UP (Theorem 2, Agreement; N = 4,
	// bin/bin, node size 2, 2 crashes; see requestMarks).
	MutantRequestEldersOnly = mutant.Name("request-elders-only")
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
	MutantXYRepWrongParent,
	MutantRebalanceLocalView,
	MutantULFMUnionAcked,
	MutantResendUpFirstOnly,
	MutantRequestEldersOnly,
}

// repWrongParent is MutantXYRepWrongParent's initial parent of the node
// representative r: the Y rule over global ranks (when r is a member).
func repWrongParent(sh *shape, r core.Rank) core.Rank {
	return core.Rank(sh.y.parent0(int(r))) // mutant: the wrong level
}

// shape is the initial tree of the node's configuration over the ranks
// outside excluded, with the mutant hooks of the tree in place.
func (n *Node) shape(excluded core.RankSet) *shape {
	sh := shapeOf(n.cfg.Tree(), n.cfg.N, excluded)
	sh.repWrongParent = n.cfg.Mutant == MutantXYRepWrongParent && sh.s > 1
	return sh
}

// The hooks: each rule calls these where a mutant changes it; with
// Config.Mutant empty every hook gives the rule's own behaviour. Each names
// its mutant and the rule it changes.

// absorbsDecidedUp is MutantUpNotRemembered's hook in Rule Recv(UP): the
// pseudocode tests Status before Result, so a decided process that is still
// notcontributed or gathering absorbs the UP instead of answering DOWN.
func (n *Node) absorbsDecidedUp(g *agreement) bool {
	return n.cfg.Mutant == MutantUpNotRemembered &&
		(g.status == NotContributed || g.status == Gathering)
}

// forgetsUp is MutantUpNotRemembered's hook in rememberUp: the pseudocode
// does not remember the sender of an UP.
func (n *Node) forgetsUp() bool { return n.cfg.Mutant == MutantUpNotRemembered }

// combineUp is Current ← F(Current, v) of Rule Recv(UP); MutantUpOverwrites
// makes it Current ← v.
func (n *Node) combineUp(current, v Value) Value {
	if n.cfg.Mutant == MutantUpOverwrites {
		return v // mutant
	}
	return n.combine(current, v)
}

// combine is F(a, b) of the node's Op; MutantULFMUnionAcked unites the
// acknowledged failures of two MPIX_Comm_agree contributions.
func (n *Node) combine(a, b Value) Value {
	x, okx := a.(Contribution)
	y, oky := b.(Contribution)
	if n.cfg.Mutant == MutantULFMUnionAcked && okx && oky {
		return Contribution{Flag: x.Flag & y.Flag, Failed: x.Failed.Union(y.Failed), Acked: x.Acked.Union(y.Acked)} // mutant
	}
	return n.cfg.Op.Combine(a, b)
}

// resendsAgain is MutantResendUpFirstOnly's hook in Part 4's first rule:
// whether p re-sends UP to its new parent for one more agreement after
// already re-sending for resent of them.
func (n *Node) resendsAgain(resent int) bool {
	return n.cfg.Mutant != MutantResendUpFirstOnly || resent == 0
}

// rootAcceptsChildDown is MutantRootIgnoresDown's hook in Rule Recv(DOWN):
// false under the mutant (the literal guard).
func (n *Node) rootAcceptsChildDown() bool { return n.cfg.Mutant != MutantRootIgnoresDown }

// acceptsAnyDown is MutantDownFromAnyone's hook in Rule Recv(DOWN).
func (n *Node) acceptsAnyDown() bool { return n.cfg.Mutant == MutantDownFromAnyone }

// marksEldersOtherwise is the hook of MutantNoMarkElders (nothing is
// marked) and MutantMarkEldersSilently (marked without Part 4) in Rule
// Recv(RESULTREQUEST) from q. It reports whether a mutant did the marking.
func (n *Node) marksEldersOtherwise(q core.Rank) bool {
	switch n.cfg.Mutant {
	case MutantNoMarkElders:
		return true
	case MutantMarkEldersSilently:
		for r := core.Rank(0); r < q; r++ {
			if r != n.p {
				n.markDead(r)
			}
		}
		return true
	}
	return false
}

// marksEldersOnly is MutantRequestEldersOnly's hook in requestMarks: the
// paper's r < q alone.
func (n *Node) marksEldersOnly() bool { return n.cfg.Mutant == MutantRequestEldersOnly }

// marksNoElders is MutantNoMarkElders's hook in the App, which mirrors Rule
// Recv(RESULTREQUEST)'s marking in its own view.
func (n *Node) marksNoElders() bool { return n.cfg.Mutant == MutantNoMarkElders }

// recordsInsteadOfUp is MutantRecordInsteadOfUp's hook in Rule
// Recv(RESULTREQUEST).
func (n *Node) recordsInsteadOfUp() bool { return n.cfg.Mutant == MutantRecordInsteadOfUp }

// rootDecidesAlone is MutantEarlyRootDecision's hook in DC: a root passes DC
// on its own contribution.
func (n *Node) rootDecidesAlone(v view) bool {
	return n.cfg.Mutant == MutantEarlyRootDecision && v.parent == core.NoRank
}

// skipsUpToNewParent is MutantNoUpToNewParent's hook in Part 4's first rule.
func (n *Node) skipsUpToNewParent() bool { return n.cfg.Mutant == MutantNoUpToNewParent }

// skipsGrandchildren is MutantNoGrandchildren's hook: Part 4's second rule
// is omitted.
func (n *Node) skipsGrandchildren() bool { return n.cfg.Mutant == MutantNoGrandchildren }

// requestsAnswered is RequestedResult as procedure Decision answers it;
// empty under MutantDecisionIgnoresRequests.
func (n *Node) requestsAnswered(g *agreement) core.RankSet {
	if n.cfg.Mutant == MutantDecisionIgnoresRequests {
		return core.RankSet{} // mutant
	}
	return g.requested
}

// dropResult is MutantGCDropsResult's hook in the garbage collection: the
// mutant reclaims Result too, which §3 forbids.
func (n *Node) dropResult(g *agreement) {
	if n.cfg.Mutant == MutantGCDropsResult {
		g.result = nil // mutant
	}
}

// localViewBase is MutantRebalanceLocalView's hook in Tree Rebalancing: the
// tree is rebuilt over S_p, not the agreed set.
func (n *Node) localViewBase() (core.RankSet, bool) {
	if n.cfg.Mutant == MutantRebalanceLocalView {
		return n.dead, true // mutant
	}
	return core.RankSet{}, false
}
