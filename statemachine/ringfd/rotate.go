package ringfd

import (
	"math/bits"

	"github.com/ftkernel/ftkernel/core"
)

// Rotation of daemon ids, d ↦ d + k mod N, with each process moving with
// its daemon (process j of d ↦ process j of d + k): a symmetry of the
// detector when the ring is the identity (§5.6's default). Heartbeats
// go to d + 1 and come from d − 1, the BMG links are i ± 2^k (Algorithm 1)
// or Open MPI's ±2^k with the next-live replacement, every daemon starts
// alike: each rule reads ids only through differences mod N. A checker
// uses it to explore one rotation class at a time (models/ringfd,
// --symmetry).

// RotationInvariant reports whether rotating daemon ids is a symmetry of
// the job: the ring is the identity (nil, or 0, 1, …, N−1 in order).
func (c *Config) RotationInvariant() bool {
	for k, d := range c.Ring {
		if int(d) != k {
			return false
		}
	}
	return true
}

// RotateRank is rank r under the rotation by k (any integer): daemon d
// becomes (d + k) mod N, process j of daemon d becomes process j of
// daemon (d + k) mod N. Ranks out of range are returned unchanged.
func (c *Config) RotateRank(r core.Rank, k int) core.Rank {
	k = ((k % c.N) + c.N) % c.N
	switch {
	case c.IsDaemon(r):
		return core.Rank((int(r) + k) % c.N)
	case c.IsProcess(r):
		d := c.Host(r)
		j := int(r) - c.N - int(d)*c.Procs
		return c.ProcRank(core.Rank((int(d)+k)%c.N), j)
	}
	return r
}

// RotateSet is {RotateRank(r, k) : r ∈ s}, a new set.
func (c *Config) RotateSet(s core.RankSet, k int) core.RankSet {
	var out core.RankSet
	s.Each(func(r core.Rank) { out.Add(c.RotateRank(r, k)) })
	return out
}

// Rotated is the state daemon RotateRank(d, k) would be in if every id had
// been rotated by k: pred, obs and Reported renamed, the rest kept. Only
// meaningful when Config.RotationInvariant.
func (n *Daemon) Rotated(k int) *Daemon {
	c := *n
	c.d = n.cfg.RotateRank(n.d, k)
	if n.pred != core.NoRank {
		c.pred = n.cfg.RotateRank(n.pred, k)
	}
	if n.obs != core.NoRank {
		c.obs = n.cfg.RotateRank(n.obs, k)
	}
	c.reported = n.cfg.RotateSet(n.reported, k)
	return &c
}

// Rotated is the state of process RotateRank(p, k) if every id had been
// rotated by k: Reported renamed.
func (n *Process) Rotated(k int) *Process {
	c := *n
	c.p = n.cfg.RotateRank(n.p, k)
	c.reported = n.cfg.RotateSet(n.reported, k)
	return &c
}

// RotateMessage is m with every rank rotated by k (a Fault's ids; HB and
// HBRequest carry none).
func (c *Config) RotateMessage(m core.Message, k int) core.Message {
	if f, ok := m.(Fault); ok {
		return Fault{IDs: c.RotateSet(f.IDs, k)}
	}
	return m
}

// appendRotatedSet appends the encoding (core.RankSet.AppendBinary) of
// RotateSet(s, k) without building the set when every rank fits in one
// word.
func (c *Config) appendRotatedSet(b []byte, s core.RankSet, k int) []byte {
	if c.Ranks() > 64 {
		return c.RotateSet(s, k).AppendBinary(b)
	}
	var w uint64
	s.Each(func(r core.Rank) { w |= 1 << uint(c.RotateRank(r, k)) })
	b = core.AppendUint(b, uint64(bits.OnesCount64(w)))
	for w != 0 {
		r := bits.TrailingZeros64(w)
		b = core.AppendUint(b, uint64(r))
		w &= w - 1
	}
	return b
}

// AppendRotated appends Rotated(k).AppendBinary(nil) without building the
// rotated state.
func (n *Daemon) AppendRotated(b []byte, k int) []byte {
	rot := func(r core.Rank) core.Rank {
		if r == core.NoRank {
			return r
		}
		return n.cfg.RotateRank(r, k)
	}
	b = core.AppendBool(b, n.started)
	b = core.AppendUint(b, uint64(rot(n.pred)+1))
	b = core.AppendUint(b, uint64(rot(n.obs)+1))
	b = core.AppendUint(b, n.hbSeq)
	b = core.AppendUint(b, n.lastSeq)
	b = core.AppendUint(b, n.fresh)
	return n.cfg.appendRotatedSet(b, n.reported, k)
}

// AppendRotated appends Rotated(k).AppendBinary(nil) without building the
// rotated state.
func (n *Process) AppendRotated(b []byte, k int) []byte {
	return n.cfg.appendRotatedSet(b, n.reported, k)
}

// AppendRotatedMessage appends RotateMessage(m, k).AppendBinary(nil).
func (c *Config) AppendRotatedMessage(b []byte, m core.Message, k int) []byte {
	if f, ok := m.(Fault); ok {
		return c.appendRotatedSet(append(b, tagFault), f.IDs, k)
	}
	return m.AppendBinary(b)
}
