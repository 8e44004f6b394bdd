package era

import (
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// shape is an initial tree (before any failure is mended) over the member
// ranks of a communicator: all n ranks, or, for a tree rebuilt by Tree
// Rebalancing (rebalance.go), the ranks outside an agreed set of failures.
//
// Both levels are described the same way: the members are grouped into
// nodes (X/Y: the NodeSize-rank blocks they belong to; flat: one member per
// node), the node representatives (first member of each node) form an X
// tree over node positions, and the members of a node form a Y tree over
// their positions within it. A member's initial parent is its Y parent, or
// for a representative the representative of its X parent node.
type shape struct {
	x, y Topology
	n    int
	s    int // ranks per node: NodeSize, or 1 for a flat tree
	// repWrongParent is MutantXYRepWrongParent's hook in initParent.
	repWrongParent bool

	// With excluded ranks: the non-empty nodes in order, each its members
	// ascending, and every rank's node and position (-1: not a member).
	// Without, all nil, and node k is ranks kS … min(kS+S, n)-1.
	nodes [][]core.Rank
	node  []int32
	local []int32
}

// shapeOf is the initial tree t over ranks 0 … n-1 minus excluded.
func shapeOf(t Tree, n int, excluded core.RankSet) *shape {
	sh := &shape{x: t.X, y: t.Y, n: n, s: t.NodeSize}
	if sh.s == 0 {
		sh.s = 1
	}
	if excluded.Empty() {
		return sh
	}
	sh.node = make([]int32, n)
	sh.local = make([]int32, n)
	block := -1
	for r := range n {
		sh.node[r], sh.local[r] = -1, -1
		if excluded.Has(core.Rank(r)) {
			continue
		}
		if r/sh.s != block {
			block = r / sh.s
			sh.nodes = append(sh.nodes, nil)
		}
		k := len(sh.nodes) - 1
		sh.node[r], sh.local[r] = int32(k), int32(len(sh.nodes[k]))
		sh.nodes[k] = append(sh.nodes[k], core.Rank(r))
	}
	return sh
}

// nodeCount is the number of (non-empty) nodes.
func (sh *shape) nodeCount() int {
	if sh.node != nil {
		return len(sh.nodes)
	}
	return (sh.n + sh.s - 1) / sh.s
}

// nodeLen is the number of members of node k.
func (sh *shape) nodeLen(k int) int {
	if sh.node != nil {
		return len(sh.nodes[k])
	}
	return min(sh.s, sh.n-k*sh.s)
}

// at is member i of node k.
func (sh *shape) at(k, i int) core.Rank {
	if sh.node != nil {
		return sh.nodes[k][i]
	}
	return core.Rank(k*sh.s + i)
}

// locate is r's node and position in it; ok is false for a non-member.
func (sh *shape) locate(r core.Rank) (k, i int, ok bool) {
	if !r.Valid(sh.n) {
		return 0, 0, false
	}
	if sh.node != nil {
		return int(sh.node[r]), int(sh.local[r]), sh.node[r] >= 0
	}
	return int(r) / sh.s, int(r) % sh.s, true
}

// member reports whether r is in the tree.
func (sh *shape) member(r core.Rank) bool {
	_, _, ok := sh.locate(r)
	return ok
}

// root is the initial root, the first member (core.NoRank if none).
func (sh *shape) root() core.Rank {
	if sh.nodeCount() == 0 {
		return core.NoRank
	}
	return sh.at(0, 0)
}

// initParent is r's parent before any failure, core.NoRank for the root or
// a non-member. It is always below r.
func (sh *shape) initParent(r core.Rank) core.Rank {
	k, i, ok := sh.locate(r)
	switch {
	case !ok || k == 0 && i == 0:
		return core.NoRank
	case i > 0:
		return sh.at(k, sh.y.parent0(i))
	case sh.repWrongParent:
		return repWrongParent(sh, r)
	}
	return sh.at(sh.x.parent0(k), 0)
}

// initKids appends r's children before any failure: its Y children and, for
// a node representative, the representatives of its X children.
func (sh *shape) initKids(r core.Rank, buf []core.Rank) []core.Rank {
	k, i, ok := sh.locate(r)
	if !ok {
		return buf
	}
	if sh.s > 1 {
		buf = appendKids(sh.y, i, sh.nodeLen(k), buf, func(j int) core.Rank { return sh.at(k, j) })
	}
	if i == 0 {
		buf = appendKids(sh.x, k, sh.nodeCount(), buf, func(j int) core.Rank { return sh.at(j, 0) })
	}
	return buf
}

// appendKids appends rank(j) for each initial child j of position i in a
// flat tree of shape t over positions 0 … size-1.
func appendKids(t Topology, i, size int, buf []core.Rank, rank func(int) core.Rank) []core.Rank {
	if t == Star {
		if i == 0 && size > 1 {
			buf = slices.Grow(buf, size-1)
			for j := 1; j < size; j++ {
				buf = append(buf, rank(j))
			}
		}
		return buf
	}
	var pos [2]int
	for _, j := range t.kids0(i, size, pos[:0]) {
		buf = append(buf, rank(j))
	}
	return buf
}

// mendedParent is Parent(S_p, p) (Tree.Parent) over the initial tree sh:
// the nearest alive initial ancestor (max Anc: the chain descends), else the
// smallest alive member below p (min Eld), else ⊥.
func mendedParent(sh *shape, dead core.RankSet, p core.Rank) core.Rank {
	if !sh.member(p) {
		return core.NoRank
	}
	for q := sh.initParent(p); q != core.NoRank; q = sh.initParent(q) {
		if !dead.Has(q) {
			return q
		}
	}
	for q := core.Rank(0); q < p; q++ {
		if sh.member(q) && !dead.Has(q) {
			return q
		}
	}
	return core.NoRank
}

// mendedChildren is Children(S_p, p) (Tree.Children) over sh: the Anc
// branch, alive members below p in the initial tree with every member
// strictly between them dead; and the Eld branch, for a root that is not
// the initial root, every alive member whose initial ancestors are all dead.
func mendedChildren(sh *shape, dead core.RankSet, p core.Rank) core.RankSet {
	var out core.RankSet
	if !sh.member(p) || dead.Has(p) {
		return out
	}
	frontier(sh, dead, p, &out)
	if r := sh.root(); p != r && isRootIn(sh, dead, p) {
		frontier(sh, dead, r, &out)
		out.Remove(p)
	}
	return out
}

// isRootIn reports whether every member below p is dead, i.e.
// Eld(S_p, p) = ∅.
func isRootIn(sh *shape, dead core.RankSet, p core.Rank) bool {
	for q := core.Rank(0); q < p; q++ {
		if sh.member(q) && !dead.Has(q) {
			return false
		}
	}
	return true
}

// frontier adds to out the alive members reached from r's initial children
// through dead members only.
func frontier(sh *shape, dead core.RankSet, r core.Rank, out *core.RankSet) {
	stack := sh.initKids(r, nil)
	for len(stack) > 0 {
		q := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if dead.Has(q) {
			stack = sh.initKids(q, stack)
		} else {
			out.Add(q)
		}
	}
}

// shapeDepth is the height of sh mended around dead (see Tree.Depth).
func shapeDepth(sh *shape, dead core.RankSet) int {
	depth := -1
	for r := range core.Rank(sh.n) {
		if !sh.member(r) || dead.Has(r) {
			continue
		}
		d := 0
		for q := mendedParent(sh, dead, r); q != core.NoRank; q = mendedParent(sh, dead, q) {
			d++
		}
		depth = max(depth, d)
	}
	return depth
}
