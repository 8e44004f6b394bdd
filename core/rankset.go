package core

import (
	"math/bits"
	"strings"
)

// RankSet is a set of ranks stored as a bitmap. The zero value is the empty
// set. Its canonical encoding lists the members in ascending order, so equal
// sets encode equally whatever their capacity.
type RankSet struct {
	words []uint64
}

// Has reports whether r is in the set.
func (s RankSet) Has(r Rank) bool {
	if r < 0 {
		return false
	}
	w := int(r) >> 6
	return w < len(s.words) && s.words[w]&(1<<(uint(r)&63)) != 0
}

// Add puts r in the set. r must not be negative.
func (s *RankSet) Add(r Rank) {
	w := int(r) >> 6
	for len(s.words) <= w {
		s.words = append(s.words, 0)
	}
	s.words[w] |= 1 << (uint(r) & 63)
}

// Remove takes r out of the set.
func (s *RankSet) Remove(r Rank) {
	if r < 0 {
		return
	}
	w := int(r) >> 6
	if w < len(s.words) {
		s.words[w] &^= 1 << (uint(r) & 63)
	}
}

// Len is the number of members.
func (s RankSet) Len() int {
	n := 0
	for _, w := range s.words {
		n += bits.OnesCount64(w)
	}
	return n
}

// Empty reports whether the set has no member.
func (s RankSet) Empty() bool {
	for _, w := range s.words {
		if w != 0 {
			return false
		}
	}
	return true
}

// Clone returns an independent copy.
func (s RankSet) Clone() RankSet {
	if len(s.words) == 0 {
		return RankSet{}
	}
	return RankSet{words: append([]uint64(nil), s.words...)}
}

// Equal reports whether both sets have the same members.
func (s RankSet) Equal(t RankSet) bool {
	n := max(len(s.words), len(t.words))
	for i := 0; i < n; i++ {
		if s.word(i) != t.word(i) {
			return false
		}
	}
	return true
}

// SubsetOf reports whether every member of s is in t.
func (s RankSet) SubsetOf(t RankSet) bool {
	for i, w := range s.words {
		if w&^t.word(i) != 0 {
			return false
		}
	}
	return true
}

// Union returns s ∪ t as a new set.
func (s RankSet) Union(t RankSet) RankSet {
	n := max(len(s.words), len(t.words))
	out := RankSet{words: make([]uint64, n)}
	for i := range out.words {
		out.words[i] = s.word(i) | t.word(i)
	}
	return out.trim()
}

// Intersect returns s ∩ t as a new set.
func (s RankSet) Intersect(t RankSet) RankSet {
	n := min(len(s.words), len(t.words))
	out := RankSet{words: make([]uint64, n)}
	for i := range out.words {
		out.words[i] = s.words[i] & t.words[i]
	}
	return out.trim()
}

// Ranks lists the members in ascending order.
func (s RankSet) Ranks() []Rank {
	var out []Rank
	s.Each(func(r Rank) { out = append(out, r) })
	return out
}

// Each calls f for each member in ascending order.
func (s RankSet) Each(f func(Rank)) {
	for i, w := range s.words {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			f(Rank(i<<6 + b))
			w &= w - 1
		}
	}
}

// String formats the set as "{p0,p3}".
func (s RankSet) String() string {
	var b strings.Builder
	b.WriteByte('{')
	first := true
	s.Each(func(r Rank) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(r.String())
	})
	b.WriteByte('}')
	return b.String()
}

// AppendBinary appends the canonical encoding: the member count, then the
// members in ascending order, as uvarints.
func (s RankSet) AppendBinary(b []byte) []byte {
	b = AppendUint(b, uint64(s.Len()))
	s.Each(func(r Rank) { b = AppendUint(b, uint64(r)) })
	return b
}

// DecodeRankSet reads a set written by AppendBinary. Members must be strictly
// ascending and below limit; anything else is an error.
func DecodeRankSet(d *Decoder, limit int) RankSet {
	var s RankSet
	n := d.Len(limit)
	prev := -1
	for i := 0; i < n && d.Err() == nil; i++ {
		r := d.Rank(limit)
		if int(r) <= prev {
			d.Fail("rank set not strictly ascending")
			return RankSet{}
		}
		prev = int(r)
		s.Add(r)
	}
	return s
}

func (s RankSet) word(i int) uint64 {
	if i < len(s.words) {
		return s.words[i]
	}
	return 0
}

func (s RankSet) trim() RankSet {
	for len(s.words) > 0 && s.words[len(s.words)-1] == 0 {
		s.words = s.words[:len(s.words)-1]
	}
	return s
}
