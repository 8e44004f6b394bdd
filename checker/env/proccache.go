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

// cacheEntry records e: e.p (with p.enc and p.fp set) as the proc of
// rank e.rank.
func (m *Model) cacheEntry(e *cachedProc) { m.procs.put(cacheKey(e.p.fp, e.rank), e) }

// decodedProc is what Decode allocates for a process it decodes, in one
// object: the proc, its entry in the cache and room for its bytes (an
// ERA N=4 process encodes in about 35 bytes; a longer one is allocated
// apart). The three live as long as any of them is reachable, which the
// cache's bound already limits.
type decodedProc struct {
	p     proc
	entry cachedProc
	enc   [decodedEnc]byte
}

// decodedEnc is the room for a decoded proc's bytes in its decodedProc.
const decodedEnc = 64

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
