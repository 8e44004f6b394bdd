package checker

import (
	"runtime/metrics"
	"sync/atomic"
)

// heapMetric is the Go heap in use by objects, live or not yet swept:
// what the search's allocations add to, readable without stopping the
// world.
const heapMetric = "/memory/classes/heap/objects:bytes"

// memGuard enforces Options.MaxMemory: workers sample the heap every few
// chunks of states; once a sample (or an estimate of an allocation about to
// be made) passes the limit, over stays set and the search winds down.
type memGuard struct {
	limit int64
	peak  atomic.Int64
	over  atomic.Bool
}

func newMemGuard(limit int64) *memGuard {
	if limit <= 0 {
		return nil
	}
	return &memGuard{limit: limit}
}

// heapBytes reads the heap metric.
func heapBytes() int64 {
	s := [1]metrics.Sample{{Name: heapMetric}}
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// check samples the heap, adds need (bytes about to be allocated), and
// reports whether the limit is passed. It is safe for concurrent use; a
// nil guard never stops.
func (g *memGuard) check(need int64) bool {
	if g == nil {
		return false
	}
	if g.over.Load() {
		return true
	}
	h := heapBytes()
	for {
		p := g.peak.Load()
		if h <= p || g.peak.CompareAndSwap(p, h) {
			break
		}
	}
	if h+need > g.limit {
		g.over.Store(true)
		return true
	}
	return false
}

// stopped reports whether the limit was passed, without sampling.
func (g *memGuard) stopped() bool { return g != nil && g.over.Load() }

func (g *memGuard) peakBytes() int64 {
	if g == nil {
		return 0
	}
	return g.peak.Load()
}
