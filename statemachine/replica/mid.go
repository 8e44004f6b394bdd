package replica

import (
	"cmp"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// MID is a message identifier (§4.2): "a 5-uple built from the
// communicator, the source, destination and tag of the message, plus a
// logical time (ticks are incremented at each send or receive)". Src and
// Dst are logical ranks, so every replica of the sender computes the same
// MID for the same send of the program.
type MID struct {
	Comm uint32
	Src  int32
	Dst  int32
	Tag  int32
	Tick uint64
}

// Compare orders MIDs lexicographically on (Comm, Src, Dst, Tag, Tick):
// the order in which a replica extracts queued messages for the program.
// Ambiguity: the paper says extraction "would follow the MID order"
// without defining it across sources; among the messages one Recv with an
// explicit source and tag can match, only Tick differs, so the choice
// matters only for ANY_SOURCE and ANY_TAG receives (which §4.3 excludes
// from the total-order claim anyway).
func (m MID) Compare(o MID) int {
	if c := cmp.Compare(m.Comm, o.Comm); c != 0 {
		return c
	}
	if c := cmp.Compare(m.Src, o.Src); c != 0 {
		return c
	}
	if c := cmp.Compare(m.Dst, o.Dst); c != 0 {
		return c
	}
	if c := cmp.Compare(m.Tag, o.Tag); c != 0 {
		return c
	}
	return cmp.Compare(m.Tick, o.Tick)
}

// String is the paper's notation, such as "(0,0,2,9,1)".
func (m MID) String() string {
	return fmt.Sprintf("(%d,%d,%d,%d,%d)", m.Comm, m.Src, m.Dst, m.Tag, m.Tick)
}

// AppendBinary appends the five fields as varints.
func (m MID) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(m.Comm))
	b = core.AppendUint(b, uint64(m.Src))
	b = core.AppendUint(b, uint64(m.Dst))
	b = core.AppendUint(b, uint64(m.Tag))
	return core.AppendUint(b, m.Tick)
}

// decodeMID reads a MID whose ranks are below procs and whose tag is below
// maxTag.
func decodeMID(d *core.Decoder, procs int) MID {
	var m MID
	if c := d.Uint(); c > 0xffffffff {
		d.Fail("communicator %d", c)
	} else {
		m.Comm = uint32(c)
	}
	m.Src = int32(d.Rank(procs))
	m.Dst = int32(d.Rank(procs))
	if t := d.Uint(); t > maxTag {
		d.Fail("tag %d over %d", t, maxTag)
	} else {
		m.Tag = int32(t)
	}
	m.Tick = d.Uint()
	return m
}

// midOrder is an order on MIDs: MID.Compare, or a mutant's (hooks.compare).
type midOrder func(a, b MID) int

// midSet is a set of MIDs kept sorted in an order (the log and history
// tables; MID.Compare in the protocol).
type midSet []MID

func (s midSet) has(m MID, order midOrder) bool {
	_, ok := s.find(m, order)
	return ok
}

func (s midSet) find(m MID, order midOrder) (int, bool) {
	lo, hi := 0, len(s)
	for lo < hi {
		h := (lo + hi) / 2
		if order(s[h], m) < 0 {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo, lo < len(s) && s[lo] == m
}

// add returns the set with m (a new slice: sets are never written in place,
// so clones may share them).
func (s midSet) add(m MID, order midOrder) midSet {
	i, ok := s.find(m, order)
	if ok {
		return s
	}
	out := make(midSet, 0, len(s)+1)
	out = append(out, s[:i]...)
	out = append(out, m)
	return append(out, s[i:]...)
}

func (s midSet) appendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(len(s)))
	for _, m := range s {
		b = m.AppendBinary(b)
	}
	return b
}

// decodeMIDSet reads a set sorted in order.
func decodeMIDSet(d *core.Decoder, procs int, order midOrder) midSet {
	n := d.Len(d.Remaining())
	s := make(midSet, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		m := decodeMID(d, procs)
		if i > 0 && !ascending(s[i-1], m, order) {
			d.Fail("MID set not strictly ascending")
		}
		s = append(s, m)
	}
	return s
}

// ascending reports whether b may follow a in a table sorted in order:
// a < b, or (only in a mutant's order that is not total: a tie) a ≠ b.
// In MID.Compare it is a < b.
func ascending(a, b MID, order midOrder) bool {
	c := order(a, b)
	return c < 0 || c == 0 && a != b
}
