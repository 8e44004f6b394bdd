package era

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// AppendBinary appends the canonical encoding of the state: S_p (the dead
// set), then the number of stored agreements and, by ascending a, each one's
// a, Status, the input of Agreement (⊥ if not called), Result, Current,
// Contributed and RequestedResult. The rank and the Config are not encoded: DecodeNode takes
// them.
func (n *Node) AppendBinary(b []byte) []byte {
	// One allocation, sized for a small node, rather than a growth per
	// field when b is short (as a fresh buffer is).
	b = slices.Grow(b, 16+24*len(n.ags))
	b = n.dead.AppendBinary(b)
	b = core.AppendUint(b, uint64(len(n.ags)))
	for i := range n.ags {
		g := &n.ags[i]
		b = core.AppendUint(b, g.a)
		b = append(b, byte(g.status))
		b = appendValue(b, g.input)
		b = appendValue(b, g.result)
		b = appendValue(b, g.current)
		b = g.contributed.AppendBinary(b)
		b = g.requested.AppendBinary(b)
	}
	return b
}

// DecodeNode reads the state of process p written by AppendBinary. Bytes
// that are malformed, non-canonical (agreements out of order, a record at
// its defaults, an overlong varint) or impossible (p marked dead, a rank or
// value outside cfg, uncollected variables under Config.GC) give an error
// wrapping core.ErrMalformed; a bad cfg or p gives New's error.
func DecodeNode(b []byte, p core.Rank, cfg Config) (*Node, error) {
	n, err := newBare(p, cfg) // the tree is computed below, from the dead set
	if err != nil {
		return nil, err
	}
	N, op := n.cfg.N, n.cfg.Op
	d := core.NewDecoder(b)
	n.dead = core.DecodeRankSet(d, N)
	if n.dead.Has(p) {
		d.Fail("%v marked dead in its own view", p)
	}
	count := d.Len(d.Remaining())
	if count <= len(n.one) { // in the node itself, as clone does
		n.ags = n.one[:0:len(n.one)]
	} else {
		n.ags = make([]agreement, 0, count)
	}
	for i := 0; i < count && d.Err() == nil; i++ {
		var g agreement
		g.a = d.Uint()
		if i > 0 && g.a <= n.ags[i-1].a {
			d.Fail("agreements not strictly ascending")
		}
		if s := d.Byte(); s > byte(Broadcasting) {
			d.Fail("status %d", s)
		} else {
			g.status = Status(s)
		}
		g.input = decodeValue(d, op)
		g.result = decodeValue(d, op)
		g.current = decodeValue(d, op)
		g.contributed = core.DecodeRankSet(d, N)
		g.requested = core.DecodeRankSet(d, N)
		if d.Err() != nil {
			break
		}
		for _, v := range []Value{g.input, g.result, g.current} {
			if v != nil {
				if err := op.Check(v, N); err != nil {
					d.Fail("a=%d: %v", g.a, err)
				}
			}
		}
		if g.isDefault() {
			d.Fail("a=%d stored at its defaults", g.a)
		}
		if n.collected(&g) && (g.status != NotContributed || g.current != nil ||
			!g.contributed.Empty() || !g.requested.Empty()) {
			d.Fail("a=%d returned but not collected", g.a)
		}
		n.ags = append(n.ags, g)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if !bytes.Equal(n.AppendBinary(nil), b) {
		return nil, fmt.Errorf("%w: non-canonical node encoding", core.ErrMalformed)
	}
	n.refreshTree()
	return n, nil
}
