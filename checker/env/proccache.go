package env

import (
	"bytes"
	"sync"

	"github.com/ftkernel/ftkernel/core"
)

// The decoded-process cache of Decode. The worlds of a search share most
// of their processes' states: ERA N=4 with 3 crashes has millions of
// worlds over a few thousand states of each process. Decode therefore
// looks up each process's bytes here and decodes (and validates) only the
// ones it has not seen; the proc it returns is shared, like the procs
// Apply leaves unchanged, since a proc reachable from a World is never
// modified (proc.go).

const (
	cacheShards = 64
	// cacheMaxProcs bounds the procs the cache holds (all shards): a
	// shard that reaches its share is emptied and starts again, so the
	// cache costs at most about cacheMaxProcs × (a proc, its bytes and its
	// node) of memory.
	cacheMaxProcs = 1 << 18
)

// procCache maps a process's rank and bytes (what appendProc writes for
// it) to its decoded proc. Safe for concurrent use.
type procCache struct {
	shards [cacheShards]cacheShard
}

type cacheShard struct {
	mu sync.Mutex
	m  map[uint64]cached
}

// cached is one decoded proc and the rank it was decoded for (its bytes
// are p.enc).
type cached struct {
	p    *proc
	rank core.Rank
}

// cacheKey mixes a proc's fingerprint (the hash of its bytes) with its
// rank.
func cacheKey(fp uint64, r core.Rank) uint64 { return fpMix(fp, uint64(r)) }

func (c *procCache) shard(key uint64) *cacheShard { return &c.shards[key>>58&(cacheShards-1)] }

// get returns the proc of rank r decoded from enc (whose fingerprint is
// fp), or nil.
func (c *procCache) get(fp uint64, r core.Rank, enc []byte) *proc {
	key := cacheKey(fp, r)
	sh := c.shard(key)
	sh.mu.Lock()
	e, ok := sh.m[key]
	sh.mu.Unlock()
	if !ok || e.rank != r || !bytes.Equal(e.p.enc, enc) {
		return nil
	}
	return e.p
}

// put records p (with p.enc and p.fp set) as the proc of rank r.
func (c *procCache) put(r core.Rank, p *proc) {
	key := cacheKey(p.fp, r)
	sh := c.shard(key)
	sh.mu.Lock()
	if sh.m == nil || len(sh.m) >= cacheMaxProcs/cacheShards {
		sh.m = make(map[uint64]cached)
	}
	sh.m[key] = cached{p: p, rank: r}
	sh.mu.Unlock()
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
