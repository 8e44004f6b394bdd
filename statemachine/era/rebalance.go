package era

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Tree Rebalancing (§3, "Topology Deterioration Mitigation"): "During an
// agreement, processes also agree upon a set of dead processes ... We make
// use of this shared knowledge to maintain a consistent list of alive
// processes that can then be used to build balanced trees for future
// agreements". With Config.Rebalance, agreement a ≥ 1 runs on the initial
// tree rebuilt over the ranks outside Failed of Result^{a-1} (the ULFM
// decision's agreed set of failures), mended around S_p as usual; agreement
// 0 runs on the configured tree.
//
// "Between agreements", in a machine: the tree of agreement a is a function
// of Result^{a-1} alone, so a process learns it when it decides a-1, and
// every process that decided a-1 computes the same tree (Theorem 2: the
// live processes decide the same value). It needs no message. A process
// must decide a-1 before it calls Agreement(v, a) (Figure 3's program: each
// call follows the return of the previous one), and a call made earlier is
// an error. Messages of agreement a may still reach a process that has not
// decided a-1 (its new parent's UP, a new root's RESULTREQUEST): with the
// tree unknown, an UP is absorbed and its sender remembered in
// RequestedResult (Decision answers Children ∪ RequestedResult, so a child
// is answered either way), and a DOWN is ignored (a DOWN of a needs the
// receiver's own UP of a, sent after its call).
//
// The rebuilt tree keeps the shape of Config's tree: a flat tree over the
// surviving ranks in order (position i of the survivors takes the place of
// rank i), an X/Y tree over the surviving members of each node (a node's
// first survivor represents it, empty nodes leave the X tree). Initial
// parents are still lower ranks, so §2's mending applies unchanged.
//
// Ambiguity: the ULFM decision carries two agreed sets, Failed (the union of
// the failures known) and Acked (the intersection of those acknowledged);
// the paper speaks of "a set of dead processes" and of building trees over
// "alive processes", so Failed is used. Failed holds what the contributors
// brought: a process that knows failures says so in its input, as Figure
// 3's stabilization loop does (MPIX_Comm_failure_ack, then agree: the
// AckAgree input contributes (flag, S_p, S_p)); ERA adds nothing to a
// contribution, so a decision is F over the callers' inputs (§1.1) and the
// validity property checks exactly that. A schedule whose inputs name no
// failure never rebuilds anything. Ambiguity: Failed is trusted to name
// dead processes only (ULFM's contract); a process never leaves itself out
// of its own tree.
//
// MutantRebalanceLocalView rebuilds from S_p, each process's own detector
// view, instead of the agreed set: two processes then work on different
// trees and agreement can break.

// checkRebalance validates Config.Rebalance.
func (c Config) checkRebalance() error {
	if c.Rebalance && c.Op != ULFM {
		return fmt.Errorf("era: tree rebalancing needs the agreed set of failures of the ULFM op, not %q", c.Op.Name())
	}
	return nil
}

// view is agreement a's tree at p: Parent(S_p, p) and Children(S_p, p)
// over a's initial tree. known is false while the tree cannot be computed
// (Rebalance: Result^{a-1} = ⊥).
type view struct {
	parent core.Rank
	kids   core.RankSet
	known  bool
}

// rebuiltBase is the set of ranks left out of agreement a's initial tree
// (empty: the configured tree), and whether it is known yet.
func (n *Node) rebuiltBase(a uint64) (core.RankSet, bool) {
	if !n.cfg.Rebalance || a == 0 {
		return core.RankSet{}, true
	}
	if local, ok := n.localViewBase(); ok { // mutant hook
		return local, true
	}
	prev := n.lookup(a - 1)
	if prev == nil || prev.result == nil {
		return core.RankSet{}, false
	}
	c, _ := prev.result.(Contribution) // Check admits ULFM values only
	if !c.Failed.Has(n.p) {
		return c.Failed, true
	}
	base := c.Failed.Clone()
	base.Remove(n.p)
	return base, true
}

// viewOf is agreement g's tree at p over S_p.
func (n *Node) viewOf(g *agreement) view {
	base, ok := n.rebuiltBase(g.a)
	switch {
	case !ok:
		return view{parent: core.NoRank}
	case base.Empty():
		return view{parent: n.parent, kids: n.kids, known: true}
	}
	sh := n.shape(base)
	return view{parent: mendedParent(sh, n.dead, n.p), kids: mendedChildren(sh, n.dead, n.p), known: true}
}

// childrenIn is Children(dead, q) over agreement g's initial tree.
func (n *Node) childrenIn(g *agreement, dead core.RankSet, q core.Rank) core.RankSet {
	base, _ := n.rebuiltBase(g.a)
	return mendedChildren(n.shape(base), dead, q)
}

// checkCall rejects, under Rebalance, Agreement(v, a) before a-1 is decided.
func (n *Node) checkCall(a uint64) error {
	if _, ok := n.rebuiltBase(a); !ok {
		return fmt.Errorf("era: %v: Agreement(a=%d) called before agreement %d was decided: its rebalanced tree is not known", n.p, a, a-1)
	}
	return nil
}

// ParentIn is Parent(S_p, p) in agreement a's tree (the rebuilt one under
// Config.Rebalance), core.NoRank at the root or while the tree is unknown.
func (n *Node) ParentIn(a uint64) core.Rank {
	return n.viewOf(&agreement{a: a}).parent
}

// ChildrenIn is a copy of Children(S_p, p) in agreement a's tree.
func (n *Node) ChildrenIn(a uint64) core.RankSet {
	return n.viewOf(&agreement{a: a}).kids.Clone()
}

// TreeIn is agreement a's initial tree as the ranks it leaves out (empty:
// the configured tree; the agreed failures of a-1 under Config.Rebalance),
// and whether p knows it yet.
func (n *Node) TreeIn(a uint64) (left core.RankSet, known bool) {
	base, ok := n.rebuiltBase(a)
	return base.Clone(), ok
}

// RebuiltDepth is the height (Tree.Depth) of tree t rebuilt over the ranks
// 0 … n-1 outside left and mended around dead.
func RebuiltDepth(t Tree, n int, left, dead core.RankSet) int {
	return shapeDepth(shapeOf(t, n, left), dead)
}

// oldViews holds the trees of every agreement before a discovery: the
// configured tree's once, and each rebuilt tree's under Rebalance.
type oldViews struct {
	flat  view
	views []view // nil unless Rebalance
}

// of is the old view of n.ags[i].
func (o oldViews) of(i int) view {
	if o.views != nil {
		return o.views[i]
	}
	return o.flat
}

// views records the trees over dead (= S_p now) of every agreement.
func (n *Node) views(dead core.RankSet) oldViews {
	o := oldViews{flat: view{parent: n.parent, kids: n.kids, known: true}}
	if n.cfg.Rebalance {
		o.views = make([]view, len(n.ags))
		for i := range n.ags {
			o.views[i] = n.viewOf(&n.ags[i])
		}
	}
	return o
}

// inSomeTree reports whether r is p's parent or child in some agreement's
// tree (then discovering r dead may trigger ERA Part 4).
func (n *Node) inSomeTree(r core.Rank) bool {
	if r == n.parent || n.kids.Has(r) {
		return true
	}
	if n.cfg.Rebalance {
		for i := range n.ags {
			if v := n.viewOf(&n.ags[i]); v.parent == r || v.kids.Has(r) {
				return true
			}
		}
	}
	return false
}
