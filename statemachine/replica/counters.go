package replica

import (
	"cmp"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// chanCount is the number of messages sent or delivered on one channel
// (comm 0, peer, tag) of a replica.
type chanCount struct {
	Peer, Tag int32
	N         uint64
}

// counters are per-channel message counts, sorted by (Peer, Tag), entries
// with N ≥ 1 only. They are never written in place.
type counters []chanCount

func (c counters) find(peer, tag int32) (int, bool) {
	return slices.BinarySearchFunc(c, chanCount{Peer: peer, Tag: tag}, func(a, b chanCount) int {
		if x := cmp.Compare(a.Peer, b.Peer); x != 0 {
			return x
		}
		return cmp.Compare(a.Tag, b.Tag)
	})
}

// get is the count of channel (peer, tag).
func (c counters) get(peer, tag int32) uint64 {
	if i, ok := c.find(peer, tag); ok {
		return c[i].N
	}
	return 0
}

// bump returns the counters with channel (peer, tag) incremented.
func (c counters) bump(peer, tag int32) counters {
	i, ok := c.find(peer, tag)
	out := slices.Clone(c)
	if ok {
		out[i].N++
		return out
	}
	return slices.Insert(out, i, chanCount{Peer: peer, Tag: tag, N: 1})
}

func (c counters) appendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(len(c)))
	for _, e := range c {
		b = core.AppendUint(b, uint64(e.Peer))
		b = core.AppendUint(b, uint64(e.Tag))
		b = core.AppendUint(b, e.N)
	}
	return b
}

func decodeCounters(d *core.Decoder, procs int) counters {
	n := d.Len(d.Remaining())
	var c counters
	for i := 0; i < n && d.Err() == nil; i++ {
		e := chanCount{Peer: int32(d.Rank(procs))}
		if t := d.Uint(); t > maxTag {
			d.Fail("tag %d", t)
		} else {
			e.Tag = int32(t)
		}
		if e.N = d.Uint(); e.N == 0 {
			d.Fail("zero channel count")
		}
		if i > 0 && (c[i-1].Peer > e.Peer || c[i-1].Peer == e.Peer && c[i-1].Tag >= e.Tag) {
			d.Fail("channel counts not strictly ascending")
		}
		c = append(c, e)
	}
	return c
}
