package env

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"

	"github.com/ftkernel/ftkernel/core"
)

// Encode appends the canonical encoding of s: N, the crashed set, then per
// process in rank order: its node's encoding (length-prefixed), its inbox
// (per distinct message in canonical order: sender, copies, bytes, and
// under BoundedDelay its deadline offset), the
// peers it has been told are dead, its call schedule, the number of calls
// made and whether a blocking call is awaited, and its history (kind,
// instance, value) and its armed timers (count, ids ascending, each
// followed under BoundedDelay by its deadline offset); the number of Clock
// actions taken comes after the crashed set, followed with Config.Hosts by
// the number of budget crashes spent (hosts.go), then the fault budgets
// spent (faults.go). Under LockStepRounds each
// process adds its timers armed for the next round (count, ids). The
// BoundedDelay clock itself is never encoded (delay.go). Equal worlds give equal bytes; the order in which
// messages were sent does not show under Unordered. Depth and the last step
// are not encoded. O(size of the state); it allocates nothing beyond b's
// growth, which doubles b.
func (m *Model) Encode(b []byte, s *World) []byte {
	if m.height == 0 { // one leaf: no walk
		return m.encodeProcs(b, s, s.root.procs)
	}
	var procs []*proc
	each(s.root, m.height, 0, func(_ int, p *proc) bool {
		procs = append(procs, p)
		return true
	})
	return m.encodeProcs(b, s, procs)
}

// encodeProcs is Encode of s, whose procs in rank order are procs.
func (m *Model) encodeProcs(b []byte, s *World, procs []*proc) []byte {
	// b is often a long arena of encodings (BFS's candidates): when it
	// must grow, double it, rather than let append grow it by a quarter
	// at a time, which copies the whole arena every few states.
	need := 3 * binary.MaxVarintLen64
	for _, p := range procs {
		need += len(p.enc)
		if p.enc == nil {
			need += 64
		}
	}
	if cap(b)-len(b) < need {
		b = slices.Grow(b, max(need, len(b)))
	}
	b = core.AppendUint(b, uint64(m.cfg.N))
	b = s.crashed.AppendBinary(b)
	b = core.AppendUint(b, uint64(s.clock))
	if m.pl.host != nil {
		b = core.AppendUint(b, uint64(s.spent))
	}
	if m.faulty() {
		b = m.appendFaults(b, s) // faults.go
	}
	enc := m.schedEnc[s.alt]
	for i, p := range procs {
		if p.enc != nil {
			b = append(b, p.enc...)
		} else {
			b = appendProc(b, p, enc[i], m.cfg.Timing)
		}
	}
	return b
}

// appendProc appends the part of the encoding of a world that process p
// (whose encoded call schedule is sched) contributes.
func appendProc(b []byte, p *proc, sched []byte, timing Timing) []byte {
	if p.ns != nil {
		b = core.AppendBytes(b, p.ns.enc)
	} else {
		start := len(b)
		b = p.node.AppendBinary(b)
		b = prefixLen(b, start)
	}
	b = core.AppendUint(b, uint64(len(p.inbox)))
	for _, e := range p.inbox {
		b = core.AppendUint(b, uint64(e.from))
		b = core.AppendUint(b, uint64(e.n))
		b = core.AppendString(b, e.key)
		if timing == BoundedDelay {
			b = core.AppendUint(b, uint64(e.d))
		}
	}
	b = p.detected.AppendBinary(b)
	b = append(b, sched...)
	b = core.AppendUint(b, uint64(p.made))
	b = core.AppendBool(b, p.awaiting)
	b = core.AppendUint(b, uint64(len(p.hist)))
	for _, r := range p.hist {
		b = append(b, byte(r.Kind))
		b = core.AppendUint(b, r.Instance)
		b = core.AppendBool(b, r.Value != nil)
		if r.Value != nil {
			start := len(b)
			b = r.Value.AppendBinary(b)
			b = prefixLen(b, start)
		}
	}
	b = appendTimers(b, p.timers, p.due, timing == BoundedDelay)
	if timing == LockStepRounds {
		b = core.AppendUint(b, uint64(len(p.next)))
		for _, id := range p.next {
			b = core.AppendUint(b, id)
		}
	}
	return b
}

// prefixLen turns the bytes b[start:] into their length-prefixed form (the
// bytes core.AppendBytes(b[:start], b[start:]) would give), in place: no
// scratch buffer is needed to learn the length first.
func prefixLen(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 { // one-byte uvarint: the common case
		b = append(b, 0)
		copy(b[start+1:], b[start:start+n])
		b[start] = byte(n)
		return b
	}
	var hdr [binary.MaxVarintLen64]byte
	h := binary.PutUvarint(hdr[:], uint64(n))
	b = append(b, hdr[:h]...)
	copy(b[start+h:], b[start:start+n])
	copy(b[start:], hdr[:h])
	return b
}

// scratch buffers for encoding one process or one message.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// procFP is the fingerprint of process i's part of the encoding of a world
// of schedule alternative alt: a hash of exactly the bytes appendProc
// appends, so that equal parts give equal fingerprints.
func (m *Model) procFP(p *proc, alt, i int) uint64 {
	bp := scratch.Get().(*[]byte)
	b := appendProc((*bp)[:0], p, m.schedEnc[alt][i], m.cfg.Timing)
	fp := core.Fingerprint(b)
	*bp = b
	scratch.Put(bp)
	return fp
}

// procEnc returns a copy of the bytes appendProc writes for process i
// (of schedule alternative alt) and their fingerprint, procFP: what Apply
// keeps of a proc it changed (proc.enc, proc.fp). When *room is not nil,
// the copy goes after the bytes already in it if it fits (then *room
// grows by them); else it is allocated apart.
func (m *Model) procEnc(p *proc, alt, i int, room *[]byte) ([]byte, uint64) {
	if buf := *room; buf != nil {
		start := len(buf)
		enc := appendProc(buf, p, m.schedEnc[alt][i], m.cfg.Timing)
		if cap(enc) == cap(buf) { // it fitted
			*room = enc
		}
		// Else grown by append: a heap copy already (with the room's
		// earlier bytes in front, unused), sized by append's policy.
		enc = enc[start:len(enc):len(enc)]
		return enc, core.Fingerprint(enc)
	}
	bp := scratch.Get().(*[]byte)
	b := appendProc((*bp)[:0], p, m.schedEnc[alt][i], m.cfg.Timing)
	enc := slices.Clone(b)
	*bp = b
	scratch.Put(bp)
	return enc, core.Fingerprint(enc)
}

// Fingerprint is a 64-bit hash of the canonical encoding of s (Encode),
// computed from the fingerprints each process keeps of its own part
// (computed by Apply for the processes it changes, shared by the worlds
// that share the process): a
// hash of N, the number of Clock actions, the crashed set (count, then
// members ascending) and the processes' fingerprints in rank order. It is a
// function of Encode(s), so equal worlds have equal fingerprints; distinct
// worlds collide with probability about 2⁻⁶⁴. O(N), no allocation, against
// O(size of the state) for Encode. It makes Model a checker.Fingerprinter.
func (m *Model) Fingerprint(s *World) uint64 {
	h := uint64(fpSeed)
	h = fpMix(h, uint64(m.cfg.N))
	h = fpMix(h, uint64(s.clock))
	h = fpMix(h, uint64(s.ncrash))
	if m.pl.host != nil {
		h = fpMix(h, uint64(s.spent))
	}
	if m.faulty() {
		h = m.mixFaults(h, s)
	}
	s.crashed.Each(func(r core.Rank) { h = fpMix(h, uint64(r)) })
	if m.height == 0 { // one leaf: no walk
		for i, p := range s.root.procs {
			f := p.fp
			if p.edit == 0 { // an initial proc
				f = m.procFP(p, s.alt, i)
			}
			h = fpMix(h, f)
		}
		hi, lo := bits.Mul64(h, fpFinal)
		return hi ^ lo
	}
	each(s.root, m.height, 0, func(i int, p *proc) bool {
		f := p.fp
		if p.edit == 0 { // an initial proc
			f = m.procFP(p, s.alt, i)
		}
		h = fpMix(h, f)
		return true
	})
	hi, lo := bits.Mul64(h, fpFinal)
	return hi ^ lo
}

const (
	fpSeed  = 0x243f6a8885a308d3
	fpK     = 0xe7037ed1a0b428db
	fpFinal = 0xa0761d6478bd642f
)

// fpMix absorbs the word x into the hash h (a multiply-fold round, as in
// core.Fingerprint).
func fpMix(h, x uint64) uint64 {
	hi, lo := bits.Mul64(h^x, fpK)
	return hi ^ lo
}
