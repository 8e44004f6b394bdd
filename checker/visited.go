package checker

import "math/bits"

// The visited set holds the 64-bit fingerprint of every distinct state and
// nothing else: parent links live in per-level arrays owned by the search
// (see bfs.go), so the table's size is the whole per-state cost of
// deduplication.
//
// It is split into numShards open-addressing tables chosen by the top
// fingerprint bits. Each shard is a flat []uint64 with linear probing
// (0 marks an empty slot; fingerprint 0 is kept in a flag). The search uses
// the set in two phases per level: many goroutines read every shard
// concurrently (contains), then each shard is written by exactly one
// goroutine (insert, including growth). The phases are separated by a
// sync.WaitGroup, so no atomics or locks are needed on the hot path.
//
// Shards grow by 3/2 when their load would pass maxLoad, so the load stays
// between maxLoad·2/3 and maxLoad: 10 to 15 bytes per distinct state.

const (
	shardBits = 8
	numShards = 1 << shardBits
	// maxLoad is the load factor (as a fraction of 1024) above which a
	// shard grows.
	maxLoad1024 = 820
	minShardCap = 16
)

type fpShard struct {
	slots   []uint64
	n       int // fingerprints stored in slots (the zero flag excluded)
	hasZero bool
}

type fpSet struct {
	shards [numShards]fpShard
}

func shardOf(fp uint64) int { return int(fp >> (64 - shardBits)) }

// home maps fp to a slot in [0, n) by multiply-shift on the bits below the
// shard bits, so capacities need not be powers of two.
func home(fp uint64, n int) int {
	hi, _ := bits.Mul64(fp<<shardBits, uint64(n))
	return int(hi)
}

func (t *fpShard) contains(fp uint64) bool {
	if fp == 0 {
		return t.hasZero
	}
	n := len(t.slots)
	if n == 0 {
		return false
	}
	i := home(fp, n)
	for {
		v := t.slots[i]
		if v == fp {
			return true
		}
		if v == 0 {
			return false
		}
		i++
		if i == n {
			i = 0
		}
	}
}

// insert adds fp and reports whether it was new.
func (t *fpShard) insert(fp uint64) bool {
	if fp == 0 {
		if t.hasZero {
			return false
		}
		t.hasZero = true
		return true
	}
	if (t.n+1)*1024 > len(t.slots)*maxLoad1024 {
		t.grow()
	}
	if !t.put(fp) {
		return false
	}
	t.n++
	return true
}

func (t *fpShard) put(fp uint64) bool {
	n := len(t.slots)
	i := home(fp, n)
	for {
		v := t.slots[i]
		if v == fp {
			return false
		}
		if v == 0 {
			t.slots[i] = fp
			return true
		}
		i++
		if i == n {
			i = 0
		}
	}
}

// reserve makes room for n fingerprints without growth: a table that
// grows while fingerprints arrive in slot order (a checkpoint's, written
// shard by shard in slot order) gathers them into one run that every later
// probe walks to its end, so loading would take time quadratic in a
// shard's size.
func (t *fpShard) reserve(n int) {
	if want := n*1024/maxLoad1024 + 1; want > len(t.slots) {
		t.resize(max(minShardCap, want))
	}
}

// reserve gives every shard room for its share of n fingerprints and a
// margin (fingerprints spread evenly over the shards).
func (s *fpSet) reserve(n uint64) {
	per := int(n / numShards)
	for i := range s.shards {
		s.shards[i].reserve(per + per/16 + 1024)
	}
}

func (t *fpShard) grow() { t.resize(max(minShardCap, len(t.slots)*3/2)) }

// resize rehashes the shard into n slots.
func (t *fpShard) resize(n int) {
	old := t.slots
	t.slots = make([]uint64, n)
	for _, v := range old {
		if v != 0 {
			t.put(v)
		}
	}
}

// len is the number of fingerprints in the set.
func (s *fpSet) len() int64 {
	var n int64
	for i := range s.shards {
		n += int64(s.shards[i].n)
		if s.shards[i].hasZero {
			n++
		}
	}
	return n
}

// bytes is the memory held by the tables' slots.
func (s *fpSet) bytes() int64 {
	var n int64
	for i := range s.shards {
		n += int64(len(s.shards[i].slots)) * 8
	}
	return n
}
