package correction

import (
	"container/heap"
	"errors"
	"fmt"
	"math/bits"
	"sort"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// TreeKind names a dissemination tree of §3.2.
type TreeKind uint8

const (
	// KaryInterleaved is the interleaved k-ary tree of §3.2.1: a process r
	// on level ℓ has the children r + i·k^ℓ, i = 1 … k, below P.
	//
	// The paper writes 0 < i < k, which gives k-1 children and, for k = 2,
	// a path. Its own Figure 3 (binary: 1 → 3, 5 and 2 → 4, 6) and its
	// sentence "a full k-ary tree has k^ℓ processes at level ℓ" both need
	// i = 1 … k, so that is what is built.
	KaryInterleaved TreeKind = iota + 1
	// KaryInOrder is the same (level-filled) k-ary shape numbered in
	// depth-first pre-order (Figure 3, left): every subtree is a contiguous
	// block of ranks, so it is not interleaved.
	KaryInOrder
	// BinomialInterleaved: children r + 2^i for i ≥ s', 2^{s'} > r (§3.2.2,
	// Eq. (2) with k = 1).
	BinomialInterleaved
	// BinomialInOrder: the MPICH/Open MPI in-order binomial tree (Figure 4,
	// left): r sends to r + 2^j for every 2^j below the lowest set bit of r
	// (every 2^j < P for the root), largest subtree first.
	BinomialInOrder
	// Lame is the Lamé tree of order K, Eq. (2) over R(t) of Eq. (1).
	Lame
	// Optimal is the LogP-optimal tree of §3.2.3 for the LogP parameters L
	// and O: every colored process sends every o time units from the moment
	// it is colored (2o+L after its parent started the send), new ranks are
	// handed out in order of send start, ties to the lower sender rank.
	// For o = 1 this is exactly the paper's formula, a Lamé tree of order
	// L+2; see Optimal's documentation on Tree for o > 1.
	Optimal
)

// String names the kind.
func (k TreeKind) String() string {
	switch k {
	case KaryInterleaved:
		return "kary"
	case KaryInOrder:
		return "kary-inorder"
	case BinomialInterleaved:
		return "binomial"
	case BinomialInOrder:
		return "binomial-inorder"
	case Lame:
		return "lame"
	case Optimal:
		return "optimal"
	}
	return fmt.Sprintf("tree(%d)", uint8(k))
}

// Tree selects a tree and its parameters. Children and Parent are pure
// functions of (P, rank); NewTopology tabulates them for repeated use.
//
// Send order: a parent sends to its children in ascending order of the
// iteration in which the paper's construction creates them (Eq. (2): "at
// iteration t the root will create a child with rank R(t+k-1)"; Figure 5's
// timeline: process 0 sends to 1, 2, 3, 4, 6 in that order). For the
// interleaved trees that is ascending rank, which is also largest subtree
// first. The in-order binomial tree sends to its largest subtree first
// (descending rank), as MPICH does; the in-order k-ary tree sends in
// pre-order (ascending rank).
//
// Optimal with o > 1: the paper's closed form r + R(i+o+L), i ≥ s', with
// R(t) = R(t-o) + R(t-2o-L), does not describe a tree when i steps by 1
// (R repeats values, e.g. o = 2, L = 2 gives the root children 1, 1, 2, 2,
// …) and disagrees with the LogP schedule when i steps by o (o = 2, L = 1:
// formula 1, 2, 3, 4, 6; schedule 1, 2, 3, 5, 8). It is built here from the
// schedule itself (Karp et al.'s greedy optimal broadcast), which equals the
// formula whenever o divides L (a Lamé tree of order 2 + L/o, in units of o).
type Tree struct {
	Kind TreeKind
	// K is the arity of k-ary trees and the order of Lamé trees.
	K int
	// L and O are the LogP latency and overhead the Optimal tree is built
	// for.
	L, O int
	// Mutant selects a deliberately broken variant (MutantKaryHeapOrder).
	Mutant mutant.Name
}

// String formats the tree, e.g. "lame(k=2)".
func (t Tree) String() string {
	switch t.Kind {
	case KaryInterleaved, KaryInOrder, Lame:
		return fmt.Sprintf("%v(k=%d)", t.Kind, t.K)
	case Optimal:
		return fmt.Sprintf("%v(L=%d,o=%d)", t.Kind, t.L, t.O)
	}
	return t.Kind.String()
}

// Validate reports whether the parameters make sense.
func (t Tree) Validate() error {
	switch t.Kind {
	case KaryInterleaved, KaryInOrder:
		if t.K < 2 {
			return fmt.Errorf("correction: %v needs k ≥ 2, got %d", t.Kind, t.K)
		}
	case Lame:
		if t.K < 1 {
			return fmt.Errorf("correction: lamé tree needs order k ≥ 1, got %d", t.K)
		}
	case Optimal:
		if t.O < 1 || t.L < 0 {
			return fmt.Errorf("correction: optimal tree needs o ≥ 1, L ≥ 0, got L=%d o=%d", t.L, t.O)
		}
	case BinomialInterleaved, BinomialInOrder:
	default:
		return fmt.Errorf("correction: unknown tree kind %d", t.Kind)
	}
	return nil
}

// Children appends the children of r in a tree of P processes to buf, in
// send order. Optimal and KaryInOrder tabulate the whole tree on each call
// (O(P)); use NewTopology for repeated queries.
func (t Tree) Children(P int, r core.Rank, buf []core.Rank) []core.Rank {
	if !r.Valid(P) || t.Validate() != nil {
		return buf
	}
	switch t.Kind {
	case KaryInterleaved:
		if t.Mutant == MutantKaryHeapOrder {
			for i := 1; i <= t.K; i++ {
				c := int64(r)*int64(t.K) + int64(i)
				if c >= int64(P) {
					break
				}
				buf = append(buf, core.Rank(c))
			}
			return buf
		}
		_, step := karyLevel(int64(r), int64(t.K))
		for i := int64(1); i <= int64(t.K); i++ {
			c := int64(r) + i*step
			if c >= int64(P) {
				break
			}
			buf = append(buf, core.Rank(c))
		}
		return buf
	case BinomialInterleaved:
		for i := bits.Len32(uint32(r)); i < 31; i++ {
			c := int64(r) + 1<<i
			if c >= int64(P) {
				break
			}
			buf = append(buf, core.Rank(c))
		}
		return buf
	case BinomialInOrder:
		top := 31
		if r != 0 {
			top = bits.TrailingZeros32(uint32(r))
		}
		for j := top - 1; j >= 0; j-- {
			c := int64(r) + 1<<j
			if c < int64(P) {
				buf = append(buf, core.Rank(c))
			}
		}
		return buf
	case Lame:
		R := lameR(t.K, P)
		// s' = the first iteration with R(s') > r; children r + R(i+k-1).
		s := 0
		for R[s] <= int64(r) {
			s++
		}
		for i := s; i+t.K-1 < len(R); i++ {
			c := int64(r) + R[i+t.K-1]
			if c >= int64(P) {
				break
			}
			buf = append(buf, core.Rank(c))
		}
		return buf
	}
	top, err := NewTopology(t, P)
	if err != nil {
		return buf
	}
	return append(buf, top.Children(r)...)
}

// Parent is r's parent, or core.NoRank for the root (or an invalid rank).
func (t Tree) Parent(P int, r core.Rank) core.Rank {
	if !r.Valid(P) || r == 0 || t.Validate() != nil {
		return core.NoRank
	}
	switch t.Kind {
	case KaryInterleaved:
		if t.Mutant == MutantKaryHeapOrder {
			return core.Rank((int64(r) - 1) / int64(t.K))
		}
		first, step := karyLevel(int64(r), int64(t.K))
		// The parent is on the level above, whose block of step/k ranks
		// starts at pfirst, and is congruent to r modulo step/k.
		pstep := step / int64(t.K)
		pfirst := first - pstep
		return core.Rank(pfirst + (int64(r)-pfirst)%pstep)
	case BinomialInterleaved:
		return r - core.Rank(1)<<(bits.Len32(uint32(r))-1)
	case BinomialInOrder:
		return r & (r - 1)
	case Lame:
		R := lameR(t.K, P)
		m := int64(0)
		for _, x := range R {
			if x <= int64(r) {
				m = x
			}
		}
		return r - core.Rank(m)
	}
	top, err := NewTopology(t, P)
	if err != nil {
		return core.NoRank
	}
	return top.Parent(r)
}

// karyLevel returns the first rank of r's level ℓ and k^ℓ.
func karyLevel(r, k int64) (first, step int64) {
	first, step = 0, 1
	for r >= first+step {
		first += step
		step *= k
	}
	return first, step
}

// lameR tabulates R(t) of Eq. (1) until it exceeds 2P (enough for every
// child and parent query of a tree of P processes).
func lameR(k, P int) []int64 {
	R := make([]int64, 0, 64)
	for t := 0; ; t++ {
		var x int64
		if t < k {
			x = 1
		} else {
			x = R[t-1] + R[t-k]
		}
		R = append(R, x)
		if x > 2*int64(P)+2 && t >= k {
			return R
		}
	}
}

// Topology is a tree tabulated for P processes: children in send order and
// parents. It is immutable once built and safe to share between nodes and
// goroutines.
type Topology struct {
	tree   Tree
	p      int
	parent []core.Rank
	start  []int32 // children of r are kids[start[r]:start[r+1]]
	kids   []core.Rank
}

// NewTopology tabulates t for P ≥ 1 processes.
func NewTopology(t Tree, P int) (*Topology, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if P < 1 || P > 1<<30 {
		return nil, fmt.Errorf("correction: process count %d out of range", P)
	}
	var lists [][]core.Rank
	switch t.Kind {
	case Optimal:
		lists = optimalLists(t.L, t.O, P)
	case KaryInOrder:
		lists = karyInOrderLists(t.K, P)
	default:
		lists = make([][]core.Rank, P)
		var buf []core.Rank
		for r := 0; r < P; r++ {
			buf = t.Children(P, core.Rank(r), buf[:0])
			lists[r] = append([]core.Rank(nil), buf...)
		}
	}
	top := &Topology{tree: t, p: P, parent: make([]core.Rank, P), start: make([]int32, P+1)}
	for i := range top.parent {
		top.parent[i] = core.NoRank
	}
	for r, l := range lists {
		top.start[r] = int32(len(top.kids))
		for _, c := range l {
			if !c.Valid(P) || c == 0 || top.parent[c] != core.NoRank {
				return nil, fmt.Errorf("correction: %v is not a tree for P=%d (rank %d reached twice or invalid)", t, P, c)
			}
			top.parent[c] = core.Rank(r)
		}
		top.kids = append(top.kids, l...)
	}
	top.start[P] = int32(len(top.kids))
	return top, nil
}

// P is the number of processes.
func (t *Topology) P() int { return t.p }

// Tree is the tree the topology tabulates.
func (t *Topology) Tree() Tree { return t.tree }

// Children lists r's children in send order. The slice is shared: do not
// modify it.
func (t *Topology) Children(r core.Rank) []core.Rank {
	if !r.Valid(t.p) {
		return nil
	}
	return t.kids[t.start[r]:t.start[r+1]:t.start[r+1]]
}

// Parent is r's parent, core.NoRank for the root.
func (t *Topology) Parent(r core.Rank) core.Rank {
	if !r.Valid(t.p) {
		return core.NoRank
	}
	return t.parent[r]
}

// optimalLists builds the LogP-optimal broadcast tree by running its
// schedule: a process colored at time c (receive done) starts sends at c,
// c+o, c+2o, …; the child of a send started at s is colored at s+2o+L.
func optimalLists(L, o, P int) [][]core.Rank {
	lists := make([][]core.Rank, P)
	h := &sendHeap{{t: 0, r: 0}}
	next := 1
	for next < P {
		s := heap.Pop(h).(sendSlot)
		c := core.Rank(next)
		next++
		lists[s.r] = append(lists[s.r], c)
		heap.Push(h, sendSlot{t: s.t + int64(o), r: s.r})
		heap.Push(h, sendSlot{t: s.t + int64(2*o+L), r: c})
	}
	return lists
}

// sendSlot is a send that process r may start at time t.
type sendSlot struct {
	t int64
	r core.Rank
}

// sendHeap orders send slots by time, ties to the lower rank (the order in
// which optimalLists hands out new ranks); container/heap. A process has
// one slot in the heap at a time, so the order is total.
type sendHeap []sendSlot

func (h sendHeap) Len() int { return len(h) }
func (h sendHeap) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].r < h[j].r
}
func (h sendHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *sendHeap) Push(x any)   { *h = append(*h, x.(sendSlot)) }
func (h *sendHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// karyInOrderLists numbers the level-filled k-ary tree of P nodes (heap
// node h has heap children hk+1 … hk+k) in depth-first pre-order.
func karyInOrderLists(k, P int) [][]core.Rank {
	num := make([]core.Rank, P) // heap index -> pre-order rank
	next := 0
	stack := []int{0}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		num[h] = core.Rank(next)
		next++
		for i := k; i >= 1; i-- {
			if c := h*k + i; c < P {
				stack = append(stack, c)
			}
		}
	}
	lists := make([][]core.Rank, P)
	for h := 0; h < P; h++ {
		for i := 1; i <= k; i++ {
			if c := h*k + i; c < P {
				lists[num[h]] = append(lists[num[h]], num[c])
			}
		}
	}
	return lists
}

// ErrNotInterleaved is wrapped by CheckInterleaved's errors.
var ErrNotInterleaved = errors.New("tree is not interleaved")

// CheckInterleaved checks Definition 1 (§3.2): for every subtree T_s and the
// ring R_s of its nodes in rank order (first and last adjacent too), every
// pair of adjacent distinct nodes either descend one from the other or have
// root(T_s) as their only common ancestor (their lowest common ancestor is
// root(T_s)). It returns nil or the first violation found.
func CheckInterleaved(t *Topology) error {
	P := t.p
	depth := make([]int, P)
	order := make([]core.Rank, 0, P)
	order = append(order, 0)
	for i := 0; i < len(order); i++ {
		for _, c := range t.Children(order[i]) {
			depth[c] = depth[order[i]] + 1
			order = append(order, c)
		}
	}
	lca := func(a, b core.Rank) core.Rank {
		for depth[a] > depth[b] {
			a = t.parent[a]
		}
		for depth[b] > depth[a] {
			b = t.parent[b]
		}
		for a != b {
			a, b = t.parent[a], t.parent[b]
		}
		return a
	}
	var members []core.Rank
	for s := 0; s < P; s++ {
		members = append(members[:0], core.Rank(s))
		for i := 0; i < len(members); i++ {
			members = append(members, t.Children(members[i])...)
		}
		if len(members) < 2 {
			continue
		}
		sort.Slice(members, func(i, j int) bool { return members[i] < members[j] })
		for i := range members {
			a, b := members[i], members[(i+1)%len(members)]
			if a == b {
				continue
			}
			l := lca(a, b)
			if l == a || l == b || l == core.Rank(s) {
				continue
			}
			return fmt.Errorf("%w: %v, P=%d: in the subtree of p%d, ring neighbours %v and %v share the ancestor %v", ErrNotInterleaved, t.tree, P, s, a, b, l)
		}
	}
	return nil
}
