package env

import (
	"bytes"
	"encoding/binary"

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

// framer reads the framing of encoded processes (counts, lengths and
// varints) without decoding them, for Decode: faster than a core.Decoder,
// and only a first pass (decodeProc validates what it reads again).
type framer struct {
	b   []byte
	i   int
	bad bool
}

func (f *framer) uint() uint64 {
	x, n := binary.Uvarint(f.b[f.i:])
	if n <= 0 {
		f.bad, f.i = true, len(f.b)
		return 0
	}
	f.i += n
	return x
}

// count reads a count, which cannot exceed the bytes left.
func (f *framer) count() int {
	n := f.uint()
	if n > uint64(len(f.b)-f.i) {
		f.bad, f.i = true, len(f.b)
		return 0
	}
	return int(n)
}

func (f *framer) skipBytes() { f.i += f.count() }

func (f *framer) byte() byte {
	if f.i >= len(f.b) {
		f.bad = true
		return 0
	}
	f.i++
	return f.b[f.i-1]
}

// msgBits sizes Decode's memo of decoded messages (2^msgBits at most).
const msgBits = 14

// cachedMsg is a message Decode decoded, and its bytes.
type cachedMsg struct {
	key string
	msg core.Message
}

// lookupMsg returns the message Decode decoded before from the bytes key
// (and those bytes as a string), or nil. Messages are immutable values,
// shared by every inbox that holds them, as Apply shares a sent message.
func (m *Model) lookupMsg(key []byte) (string, core.Message) {
	c := m.msgs.get(core.Fingerprint(key), func(c *cachedMsg) bool { return c.key == string(key) })
	if c == nil {
		return "", nil
	}
	return c.key, c.msg
}

// internMsg records msg as the message decoded from key.
func (m *Model) internMsg(key string, msg core.Message) {
	m.msgs.put(core.Fingerprint([]byte(key)), &cachedMsg{key: key, msg: msg})
}

// skipProc reads past what appendProc wrote for one process, checking only
// the framing, and returns the bytes of its encoded call schedule
// (aliasing f.b). decodeProc validates the rest.
func (m *Model) skipProc(f *framer) []byte {
	timed := m.cfg.Timing == BoundedDelay
	f.skipBytes() // node
	k := f.count()
	for j := 0; j < k && !f.bad; j++ {
		f.uint() // sender
		f.uint() // copies
		f.skipBytes()
		if timed {
			f.uint()
		}
	}
	nd := f.count() // detected
	for j := 0; j < nd && !f.bad; j++ {
		f.uint()
	}
	start := f.i
	nc := f.count()
	for j := 0; j < nc && !f.bad; j++ {
		f.skipBytes()
	}
	sched := f.b[start:f.i]
	f.uint() // made
	f.byte() // awaiting
	nh := f.count()
	for j := 0; j < nh && !f.bad; j++ {
		f.byte()
		f.uint()
		if f.byte() != 0 {
			f.skipBytes()
		}
	}
	nt := f.count()
	for j := 0; j < nt && !f.bad; j++ {
		f.uint()
		if timed {
			f.uint()
		}
	}
	if m.cfg.Timing == LockStepRounds {
		nn := f.count()
		for j := 0; j < nn && !f.bad; j++ {
			f.uint()
		}
	}
	return sched
}
