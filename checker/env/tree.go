package env

import (
	"slices"
	"sync/atomic"
)

// The processes of a world live in a persistent 32-ary tree of fixed height:
// leaves hold up to 32 procs, and every node holds the sum of its procs'
// aggs.
const (
	tbits  = 5
	twidth = 1 << tbits
)

type tnode struct {
	edit  uint64 // the Apply that owns it; 0 for shared nodes
	sum   agg
	kids  []*tnode // height > 0
	procs []*proc  // height 0
}

// heightFor is the smallest height whose tree holds n procs.
func heightFor(n int) int {
	h := 0
	for c := twidth; c < n; c <<= tbits {
		h++
	}
	return h
}

// build returns a tree of height h holding ps in order.
func build(ps []*proc, h int) *tnode {
	t := &tnode{}
	if h == 0 {
		t.procs = slices.Clip(ps)
		for _, p := range ps {
			t.sum.add(p.agg)
		}
		return t
	}
	span := 1 << (tbits * h)
	for i := 0; i < len(ps); i += span {
		c := build(ps[i:min(i+span, len(ps))], h-1)
		t.kids = append(t.kids, c)
		t.sum.add(c.sum)
	}
	return t
}

// get returns proc i of the tree of height h.
func get(t *tnode, h, i int) *proc {
	for ; h > 0; h-- {
		t = t.kids[(i>>(tbits*h))&(twidth-1)]
	}
	return t.procs[i&(twidth-1)]
}

// each calls f on each proc in rank order until f returns false.
func each(t *tnode, h, base int, f func(i int, p *proc) bool) bool {
	if h == 0 {
		for j, p := range t.procs {
			if !f(base+j, p) {
				return false
			}
		}
		return true
	}
	for j, c := range t.kids {
		if !each(c, h-1, base+j<<(tbits*h), f) {
			return false
		}
	}
	return true
}

// pick returns the proc that holds unit k of weight, weight(agg) being the
// weight of a proc or subtree, and k's offset within that proc's weight.
// Requires 0 ≤ k < weight(t.sum).
func pick(t *tnode, h int, k int64, weight func(agg) int64) (int, int64) {
	base := 0
	for ; h > 0; h-- {
		for j, c := range t.kids {
			if w := weight(c.sum); k < w {
				t = c
				base += j << (tbits * h)
				break
			}
			k -= weight(c.sum)
		}
	}
	for j, p := range t.procs {
		if w := weight(p.agg); k < w {
			return base + j, k
		}
		k -= weight(p.agg)
	}
	panic("env: pick beyond the tree's weight") // unreachable when k < weight(sum)
}

var editSeq atomic.Uint64

// tx edits a tree on behalf of one Apply: nodes and procs it copies carry
// its edit id and are changed in place until commit.
type tx struct {
	root *tnode
	h    int
	edit uint64
	// The procs copied, to reweigh at commit: the first ones in few (an
	// array, so that a tx stays on its Apply's stack), the rest in more.
	nfew int
	few  [4]int
	more []int
	// spares is memory for the next procs copied (allocated with the
	// world: see Model.newWorld); mut overwrites each one it takes.
	spares []proc
	// encBuf, when not nil, is room for the bytes of the procs copied (see
	// Model.procEnc), allocated with the world: its length is the room
	// used.
	encBuf []byte
}

func newTx(root *tnode, h int) tx { return tx{root: root, h: h, edit: editSeq.Add(1)} }

func (t *tx) own(n *tnode) *tnode {
	if n.edit == t.edit {
		return n
	}
	c := &tnode{edit: t.edit, sum: n.sum}
	if n.kids != nil {
		c.kids = slices.Clone(n.kids)
	} else {
		c.procs = slices.Clone(n.procs)
	}
	return c
}

// put stores p at i and adds delta to the sums along the path.
func (t *tx) put(i int, p *proc, delta agg) {
	if t.h == 0 && t.root.edit == t.edit { // one leaf, owned (newWorld)
		t.root.sum.add(delta)
		t.root.procs[i] = p
		return
	}
	t.root = t.own(t.root)
	n := t.root
	for h := t.h; h > 0; h-- {
		n.sum.add(delta)
		j := (i >> (tbits * h)) & (twidth - 1)
		c := t.own(n.kids[j])
		n.kids[j] = c
		n = c
	}
	n.sum.add(delta)
	n.procs[i&(twidth-1)] = p
}

// get returns proc i as the edit sees it (possibly owned).
func (t *tx) get(i int) *proc { return get(t.root, t.h, i) }

// mut returns an owned copy of proc i, stored in the tree.
func (t *tx) mut(i int) *proc {
	p := t.get(i)
	if p.edit == t.edit {
		return p
	}
	var c *proc
	if len(t.spares) > 0 {
		c, t.spares = &t.spares[0], t.spares[1:]
	} else {
		c = new(proc)
	}
	*c = *p
	c.edit = t.edit
	c.enc = nil // the copy's bytes are set again by commit
	t.put(i, c, agg{})
	if t.nfew < len(t.few) {
		t.few[t.nfew] = i
		t.nfew++
	} else {
		t.more = append(t.more, i)
	}
	return c
}
