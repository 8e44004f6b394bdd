package env

import (
	"bytes"

	"github.com/ftkernel/ftkernel/core"
)

// The decoded-process cache of Decode. The worlds of a search share many
// of their processes' states (ERA N=4 with 3 crashes: four in five of the
// processes Decode meets were met before). Decode therefore looks up each
// process's bytes here and decodes (and validates) only the ones it has
// not seen; the proc it returns is shared, like the procs Apply leaves
// unchanged, since a proc reachable from a World is never modified
// (proc.go).

// procCacheBits sizes the cache: 2^procCacheBits procs at most.
const procCacheBits = 16

// cachedProc is one decoded proc and the rank it was decoded for (its
// bytes are p.enc).
type cachedProc struct {
	p    *proc
	rank core.Rank
}

// cacheKey mixes a proc's fingerprint (the hash of its bytes) with its
// rank.
func cacheKey(fp uint64, r core.Rank) uint64 { return fpMix(fp, uint64(r)+1) }

// cachedProcOf returns the proc of rank r decoded from enc (whose
// fingerprint is fp), or nil.
func (m *Model) cachedProcOf(fp uint64, r core.Rank, enc []byte) *proc {
	e := m.procs.get(cacheKey(fp, r), func(e *cachedProc) bool {
		return e.rank == r && bytes.Equal(e.p.enc, enc)
	})
	if e == nil {
		return nil
	}
	return e.p
}

// cacheProc records p (with p.enc and p.fp set) as the proc of rank r.
func (m *Model) cacheProc(r core.Rank, p *proc) {
	m.procs.put(cacheKey(p.fp, r), &cachedProc{p: p, rank: r})
}

// skipProc reads past what appendProc wrote for one process, checking only
// the framing (counts and lengths), and returns the bytes of its encoded
// call schedule (aliasing the input). decodeProc validates the rest.
func (m *Model) skipProc(d *core.Decoder, b []byte) []byte {
	timed := m.cfg.Timing == BoundedDelay
	d.Bytes(d.Remaining()) // node
	k := d.Len(d.Remaining())
	for j := 0; j < k && d.Err() == nil; j++ {
		d.Uint() // sender
		d.Uint() // copies
		d.Bytes(d.Remaining())
		if timed {
			d.Uint()
		}
	}
	nd := d.Len(d.Remaining()) // detected
	for j := 0; j < nd && d.Err() == nil; j++ {
		d.Uint()
	}
	start := len(b) - d.Remaining()
	nc := d.Len(d.Remaining())
	for j := 0; j < nc && d.Err() == nil; j++ {
		d.Bytes(d.Remaining())
	}
	sched := b[start : len(b)-d.Remaining()]
	d.Uint() // made
	d.Byte() // awaiting
	nh := d.Len(d.Remaining())
	for j := 0; j < nh && d.Err() == nil; j++ {
		d.Byte()
		d.Uint()
		if d.Byte() != 0 {
			d.Bytes(d.Remaining())
		}
	}
	nt := d.Len(d.Remaining())
	for j := 0; j < nt && d.Err() == nil; j++ {
		d.Uint()
		if timed {
			d.Uint()
		}
	}
	if m.cfg.Timing == LockStepRounds {
		nn := d.Len(d.Remaining())
		for j := 0; j < nn && d.Err() == nil; j++ {
			d.Uint()
		}
	}
	return sched
}
