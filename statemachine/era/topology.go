package era

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// Topology is the shape of a flat tree before any failure (§2 and §3,
// "Topologies"), or of one level of an X/Y tree (see Tree). Every topology
// is mended the same way: p's parent is its nearest alive initial ancestor,
// else the smallest alive rank below p (the root), else p is the root.
type Topology uint8

const (
	// Binary is the paper's formal tree (§2): the initial ancestors of p
	// are ⌊p/2^i⌋, i ≥ 1, so 0 → 1, and p → 2p, 2p+1 for p ≥ 1.
	Binary Topology = iota
	// Star is §3's star: every process is a child of the root, the
	// smallest alive rank.
	Star
	// String is §3's string of processes (a chain): the initial parent of
	// p is p-1, so the mended parent is the nearest alive rank below p.
	String
)

// String names the topology: "binary", "star" or "string".
func (t Topology) String() string {
	switch t {
	case Binary:
		return "binary"
	case Star:
		return "star"
	case String:
		return "string"
	}
	return fmt.Sprintf("topology(%d)", uint8(t))
}

// ParseTopology reads "binary" (or the paper's "bin"), "star" or "string".
func ParseTopology(s string) (Topology, error) {
	switch s {
	case "binary", "bin":
		return Binary, nil
	case "star":
		return Star, nil
	case "string":
		return String, nil
	}
	return 0, fmt.Errorf("era: unknown topology %q (want binary, star or string)", s)
}

// parent0 is the initial parent of position i > 0 in a flat tree of shape t:
// ⌊i/2⌋ (Binary), 0 (Star) or i-1 (String). It is always below i.
func (t Topology) parent0(i int) int {
	switch t {
	case Star:
		return 0
	case String:
		return i - 1
	}
	return i / 2
}

// kids0 appends the initial children of position i in a flat tree of shape
// t over positions 0 … size-1.
func (t Topology) kids0(i, size int, buf []int) []int {
	switch t {
	case Star:
		if i == 0 {
			for j := 1; j < size; j++ {
				buf = append(buf, j)
			}
		}
		return buf
	case String:
		if i+1 < size {
			buf = append(buf, i+1)
		}
		return buf
	}
	if i == 0 {
		if size > 1 {
			buf = append(buf, 1)
		}
		return buf
	}
	for _, j := range []int{2 * i, 2*i + 1} {
		if j < size {
			buf = append(buf, j)
		}
	}
	return buf
}

// Tree is the initial tree ERA works on (§3, "Topologies"): flat, or an X/Y
// hierarchical tree. §3: "an X/Y tree, when groups are organized internally
// using a Y-tree, and between them using an X-tree (e.g., a bin/star tree
// organizes group roots along a binary tree, and each other process of a
// group is connected to its root directly)". So X is the upper level, over
// the node representatives, and Y the lower level, within a node.
//
// The groups are nodes of NodeSize consecutive ranks (node k holds ranks
// kS … kS+S-1, the last node may be smaller), and a node's representative
// (its root, the "node master" of Table 2d) is its first rank. Ambiguity:
// the paper does not say how ranks map to nodes nor which rank represents a
// node; Table 2d ("16 (node master)", "16–31 (full node)" at 16 processes
// per node) fits consecutive blocks with the first rank as representative.
// Table 2d also calls rank 4 a "child of 0" in bin/bin, which the §2 binary
// tree used here at both levels does not give (4's initial parent is 2):
// the implementation's node-local tree may differ from §2's; §2's is kept.
//
// Every initial parent has a smaller rank than its child (a Y parent is
// earlier in its node, an X parent is an earlier node's representative),
// which is all the mending of §2 (Anc, Eld) and the proofs use: the
// ancestors of p form a descending chain to 0, so max Anc is the nearest
// alive ancestor, and a root's elders are all dead.
type Tree struct {
	// X is the flat tree, or with NodeSize > 0 the tree over the node
	// representatives.
	X Topology
	// Y is the tree within each node (with NodeSize > 0; else unused and
	// zero).
	Y Topology
	// NodeSize is S, the number of consecutive ranks per node; 0 means a
	// flat tree.
	NodeSize int
}

// ParseTree reads a topology name as the CLI takes it: "binary", "star" or
// "string" for a flat tree (nodeSize must be 0), or "X/Y" with X and Y among
// those (and "bin" for "binary", as the paper writes "bin/star") for a
// hierarchical tree of nodeSize ≥ 1 ranks per node. Anything else is an
// error.
func ParseTree(topology string, nodeSize int) (Tree, error) {
	x, y, hier := strings.Cut(topology, "/")
	if !hier {
		t, err := ParseTopology(x)
		if err != nil {
			return Tree{}, err
		}
		if nodeSize != 0 {
			return Tree{}, fmt.Errorf("era: node size %d needs an X/Y topology, not %q", nodeSize, topology)
		}
		return Tree{X: t}, nil
	}
	tx, err := ParseTopology(x)
	if err != nil {
		return Tree{}, fmt.Errorf("era: topology %q: X: %w", topology, err)
	}
	ty, err := ParseTopology(y)
	if err != nil {
		return Tree{}, fmt.Errorf("era: topology %q: Y: %w", topology, err)
	}
	if nodeSize < 1 || nodeSize > MaxN {
		return Tree{}, fmt.Errorf("era: topology %q needs a node size in 1..%d, got %d", topology, MaxN, nodeSize)
	}
	return Tree{X: tx, Y: ty, NodeSize: nodeSize}, nil
}

// String names the tree: "binary", or e.g. "binary/star:4" (X/Y, then the
// node size).
func (t Tree) String() string {
	if t.NodeSize == 0 {
		return t.X.String()
	}
	return fmt.Sprintf("%v/%v:%d", t.X, t.Y, t.NodeSize)
}

// validate reports a Tree that ParseTree would not produce.
func (t Tree) validate() error {
	if t.X > String || t.Y > String {
		return fmt.Errorf("era: unknown topology %d/%d", t.X, t.Y)
	}
	if t.NodeSize < 0 || t.NodeSize > MaxN || t.NodeSize == 0 && t.Y != 0 {
		return fmt.Errorf("era: bad hierarchical tree %v/%v with node size %d", t.X, t.Y, t.NodeSize)
	}
	return nil
}

// Parent is Parent(S_p, p) of §2 for n processes, where dead holds the ranks
// marked dead in S_p:
//
//	Anc(S_p, p) = {q initial ancestor of p, S_p[q] ≠ dead}
//	Eld(S_p, p) = {q < p, S_p[q] ≠ dead}
//	Parent      = max Anc if Anc ≠ ∅, else min Eld if Eld ≠ ∅, else ⊥
//
// For the flat Binary tree the initial ancestors are ⌊p/2^i⌋, i ≥ 1; for
// Star {0}; for String all q < p; for X/Y the chain of initial parents (see
// Tree). Ambiguity: ⌊0/2^i⌋ = 0, so the literal Anc(S_0, 0) holds 0 itself;
// a process is never its own ancestor, so q = p is excluded and 0 is the
// initial root. Parent returns core.NoRank (⊥) for the root and for p out of
// range. Whether p itself is marked dead does not matter.
func (t Tree) Parent(dead core.RankSet, p core.Rank, n int) core.Rank {
	return mendedParent(shapeOf(t, n, core.RankSet{}), dead, p)
}

// Children is Children(S_p, p) = {q : Parent(S_p, q) = p} of §2, restricted
// to the ranks q alive in S_p. Ambiguity: the paper's set ranges over every
// q, but Lemma 4 ("all processes in Children(S_q, q) in C are in
// Children(S_p, p) in C'", once q is marked dead) and the rule DC, which
// would otherwise wait forever for a dead child, need dead ranks left out.
// A rank marked dead has no children.
//
// The cost is proportional to the number of dead ranks visited and children
// found, not to n (except where a star gives one rank every other one).
func (t Tree) Children(dead core.RankSet, p core.Rank, n int) core.RankSet {
	return mendedChildren(shapeOf(t, n, core.RankSet{}), dead, p)
}

// Depth is the height of the tree mended around dead: the largest number of
// parent links from an alive rank up to its root (0 for a lone root, -1
// when every rank is dead). It costs O(n · depth).
func (t Tree) Depth(dead core.RankSet, n int) int {
	return shapeDepth(shapeOf(t, n, core.RankSet{}), dead)
}

// Parent is the flat Tree{X: t}.Parent (see Tree.Parent).
func Parent(dead core.RankSet, p core.Rank, n int, t Topology) core.Rank {
	return Tree{X: t}.Parent(dead, p, n)
}

// Children is the flat Tree{X: t}.Children (see Tree.Children).
func Children(dead core.RankSet, p core.Rank, n int, t Topology) core.RankSet {
	return Tree{X: t}.Children(dead, p, n)
}
