package env

import (
	"sync"
	"sync/atomic"
)

// memo is a fixed-size, lock-free cache of *V by 64-bit hash, for the
// Model's decoded procs, node states and steps: each hash has two slots
// (its own and its neighbour); a lookup reads both, a store takes an empty
// one or replaces the hash's own. The caller verifies that a value found
// is the one it wants (equal keys, not only equal hashes): a memo only
// saves work, and a value it forgot or replaced is only recomputed. Safe
// for concurrent use; the slots are allocated at the first use. A memo of
// 0 bits holds nothing.
type memo[V any] struct {
	bits  uint
	once  sync.Once
	slots []atomic.Pointer[V]
}

func (c *memo[V]) table() []atomic.Pointer[V] {
	c.once.Do(func() { c.slots = make([]atomic.Pointer[V], 1<<c.bits) })
	return c.slots
}

// get returns a value stored under h that match accepts, or nil.
func (c *memo[V]) get(h uint64, match func(*V) bool) *V {
	if c.bits == 0 { // off (Model.noMemo)
		return nil
	}
	s := c.table()
	i := int(h>>(64-c.bits)) &^ 1
	if v := s[i].Load(); v != nil && match(v) {
		return v
	}
	if v := s[i+1].Load(); v != nil && match(v) {
		return v
	}
	return nil
}

// put stores v under h.
func (c *memo[V]) put(h uint64, v *V) {
	if c.bits == 0 {
		return
	}
	s := c.table()
	i := int(h >> (64 - c.bits))
	if s[i^1].Load() == nil {
		i ^= 1
	}
	s[i].Store(v)
}
