package abcast

import (
	"math/bits"

	"github.com/ftkernel/ftkernel/core"
)

// idSet is a set of message IDs: one bitmap of sequence numbers per origin.
// The zero value is empty; its encoding is canonical (trailing zero words
// are not encoded).
type idSet struct{ w [][]uint64 }

func (s *idSet) has(id ID) bool {
	o, i := int(id.Origin), int(id.Seq/64)
	return o < len(s.w) && i < len(s.w[o]) && s.w[o][i]&(1<<(id.Seq%64)) != 0
}

// add adds id and reports whether it was new.
func (s *idSet) add(id ID) bool {
	if s.has(id) {
		return false
	}
	o, i := int(id.Origin), int(id.Seq/64)
	for len(s.w) <= o {
		s.w = append(s.w, nil)
	}
	for len(s.w[o]) <= i {
		s.w[o] = append(s.w[o], 0)
	}
	s.w[o][i] |= 1 << (id.Seq % 64)
	return true
}

// count is the number of o's messages in s.
func (s *idSet) count(o core.Rank) int {
	if int(o) >= len(s.w) {
		return 0
	}
	c := 0
	for _, x := range s.w[o] {
		c += bits.OnesCount64(x)
	}
	return c
}

func (s idSet) clone() idSet {
	c := idSet{w: make([][]uint64, len(s.w))}
	for i, x := range s.w {
		c.w[i] = append([]uint64(nil), x...)
	}
	return c
}

func (s idSet) appendBinary(b []byte, n int) []byte {
	for o := range n {
		var x []uint64
		if o < len(s.w) {
			x = s.w[o]
		}
		for len(x) > 0 && x[len(x)-1] == 0 {
			x = x[:len(x)-1]
		}
		b = core.AppendUint(b, uint64(len(x)))
		for _, v := range x {
			b = core.AppendUint(b, v)
		}
	}
	return b
}

func decodeIDSet(d *core.Decoder, n int) idSet {
	var s idSet
	for o := range n {
		k := d.Len(MaxMessages / 64)
		var x []uint64
		for range k {
			x = append(x, d.Uint())
		}
		if k > 0 && x[k-1] == 0 {
			d.Fail("idset: trailing zero word")
		}
		if k > 0 {
			for len(s.w) <= o {
				s.w = append(s.w, nil)
			}
			s.w[o] = x
		}
	}
	return s
}
