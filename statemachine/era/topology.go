package era

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Topology is the shape of the tree before any failure (§2 and §3,
// "Topologies"). Every topology is mended the same way: p's parent is its
// nearest alive initial ancestor, else the smallest alive rank below p (the
// root), else p is the root.
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

// Parent is Parent(S_p, p) of §2 for n processes, where dead holds the ranks
// marked dead in S_p:
//
//	Anc(S_p, p) = {q = ⌊p/2^i⌋, i ≥ 1, S_p[q] ≠ dead}   (Binary)
//	Eld(S_p, p) = {q < p, S_p[q] ≠ dead}
//	Parent      = max Anc if Anc ≠ ∅, else min Eld if Eld ≠ ∅, else ⊥
//
// For Star the initial ancestors of p > 0 are {0}; for String they are all
// q < p. Ambiguity: ⌊0/2^i⌋ = 0, so the literal Anc(S_0, 0) holds 0 itself;
// a process is never its own ancestor, so q = p is excluded and 0 is the
// initial root. Parent returns core.NoRank (⊥) for the root and for p out of
// range. Whether p itself is marked dead does not matter.
func Parent(dead core.RankSet, p core.Rank, n int, t Topology) core.Rank {
	if !p.Valid(n) || p == 0 {
		return core.NoRank
	}
	switch t {
	case Binary:
		for q := p >> 1; ; q >>= 1 {
			if !dead.Has(q) {
				return q // the chain descends, so the first alive is max Anc
			}
			if q == 0 {
				break
			}
		}
	case String:
		for q := p - 1; q >= 0; q-- {
			if !dead.Has(q) {
				return q
			}
		}
		return core.NoRank
	}
	// Star (Anc = {0}, and 0 is min Eld when alive) and Binary with every
	// ancestor dead: min Eld.
	for q := core.Rank(0); q < p; q++ {
		if !dead.Has(q) {
			return q
		}
	}
	return core.NoRank
}

// Children is Children(S_p, p) = {q : Parent(S_p, q) = p} of §2, restricted
// to the ranks q alive in S_p. Ambiguity: the paper's set ranges over every
// q, but Lemma 4 ("all processes in Children(S_q, q) in C are in
// Children(S_p, p) in C'", once q is marked dead) and the rule DC, which
// would otherwise wait forever for a dead child, need dead ranks left out.
// A rank marked dead has no children.
//
// The cost is proportional to the number of dead ranks visited and children
// found, not to n (except Star, whose root has every process as a child).
func Children(dead core.RankSet, p core.Rank, n int, t Topology) core.RankSet {
	var out core.RankSet
	if !p.Valid(n) || dead.Has(p) {
		return out
	}
	switch t {
	case Binary:
		// Anc branch: q below p in the initial tree with every rank strictly
		// between them dead.
		binaryFrontier(dead, p, n, &out)
		// Eld branch: the root (every rank below p dead) adopts every alive
		// q whose initial ancestors are all dead.
		if p != 0 && isRoot(dead, p) {
			binaryFrontier(dead, 0, n, &out)
			out.Remove(p)
		}
	case Star:
		if isRoot(dead, p) {
			for q := p + 1; int(q) < n; q++ {
				if !dead.Has(q) {
					out.Add(q)
				}
			}
		}
	case String:
		for q := p + 1; int(q) < n; q++ {
			if !dead.Has(q) {
				out.Add(q)
				break
			}
		}
	}
	return out
}

// isRoot reports whether every rank below p is dead, i.e. Eld(S_p, p) = ∅.
func isRoot(dead core.RankSet, p core.Rank) bool {
	for q := core.Rank(0); q < p; q++ {
		if !dead.Has(q) {
			return false
		}
	}
	return true
}

// binaryFrontier adds to out the alive ranks reached from r's initial
// children through dead ranks only.
func binaryFrontier(dead core.RankSet, r core.Rank, n int, out *core.RankSet) {
	stack := binaryKids(r, n, nil)
	for len(stack) > 0 {
		q := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if dead.Has(q) {
			stack = binaryKids(q, n, stack)
		} else {
			out.Add(q)
		}
	}
}

// binaryKids appends r's children in the initial binary tree: 1 for 0, and
// 2r, 2r+1 otherwise (those below n).
func binaryKids(r core.Rank, n int, buf []core.Rank) []core.Rank {
	if r == 0 {
		if n > 1 {
			buf = append(buf, 1)
		}
		return buf
	}
	for _, q := range []int64{2 * int64(r), 2*int64(r) + 1} {
		if q < int64(n) {
			buf = append(buf, core.Rank(q))
		}
	}
	return buf
}
