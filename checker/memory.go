package checker

import (
	"context"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// heapMetric is the Go heap in use by objects, live or not yet swept:
// what the search's allocations add to, readable without stopping the
// world.
const heapMetric = "/memory/classes/heap/objects:bytes"

// rssEvery is the least time between two reads of the resident set.
const rssEvery = 10 * time.Millisecond

// memGuard enforces a search's memory bound: workers sample the Go heap
// every few chunks of states, and the resident set (/proc/self/statm) at
// most every rssEvery; once a sample, plus an estimate of an allocation
// about to be made, passes the limit, over stays set and the search winds
// down.
type memGuard struct {
	limit   int64  // bytes
	statm   string // the process's statm file
	every   time.Duration
	start   time.Time
	peak    atomic.Int64 // largest heap sample, bytes
	rssPeak atomic.Int64 // largest resident set sample, bytes
	rssNext atomic.Int64 // nanoseconds after start of the next resident set read
	over    atomic.Bool
	// What passed the limit, set once by the first check that saw it:
	// byRSS, the sample and the bytes about to be allocated.
	passed   atomic.Bool
	byRSS    bool
	at, need int64
}

// newMemGuard returns a guard of limit bytes that reads the resident set
// under root ("" is "/"), or nil when limit is not positive.
func newMemGuard(limit int64, root string) *memGuard {
	if limit <= 0 {
		return nil
	}
	if root == "" {
		root = "/"
	}
	return &memGuard{limit: limit, statm: statmPath(root), every: rssEvery, start: time.Now()}
}

// statmPath is /proc/self/statm under root.
func statmPath(root string) string { return filepath.Join(root, "proc/self/statm") }

// residentBytes returns the resident set in bytes from a statm file (its
// second field, in pages), or 0 when it cannot be read.
func residentBytes(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	fs := strings.Fields(string(b))
	if len(fs) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(fs[1], 10, 64)
	if err != nil || pages <= 0 {
		return 0
	}
	return pages * int64(os.Getpagesize())
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

// raise sets p to v when v is larger.
func raise(p *atomic.Int64, v int64) {
	for {
		o := p.Load()
		if v <= o || p.CompareAndSwap(o, v) {
			return
		}
	}
}

// check samples the heap, and the resident set when need is positive or
// rssEvery has passed since its last read, adds need (bytes about to be
// allocated), and reports whether the limit is passed. It is safe for
// concurrent use; a nil guard never stops.
func (g *memGuard) check(need int64) bool {
	if g == nil {
		return false
	}
	if g.over.Load() {
		return true
	}
	h := heapBytes()
	raise(&g.peak, h)
	if h+need > g.limit {
		return g.pass(false, h, need)
	}
	now := int64(time.Since(g.start))
	next := g.rssNext.Load()
	if need > 0 || now >= next && g.rssNext.CompareAndSwap(next, now+int64(g.every)) {
		if r := residentBytes(g.statm); r > 0 {
			raise(&g.rssPeak, r)
			if r+need > g.limit {
				return g.pass(true, r, need)
			}
		}
	}
	return false
}

// pass records what passed the limit (the first caller only) and sets
// over; it returns true.
func (g *memGuard) pass(byRSS bool, at, need int64) bool {
	if g.passed.CompareAndSwap(false, true) {
		g.byRSS, g.at, g.need = byRSS, at, need
		g.over.Store(true)
	}
	return true
}

// passedBy names the measure that passed the limit ("Go heap" or
// "resident set") with its sample and the bytes about to be allocated, in
// bytes. Call it after the search's workers have stopped.
func (g *memGuard) passedBy() (what string, at, need int64) {
	if g == nil || !g.over.Load() {
		return "Go heap", g.peakBytes(), 0
	}
	if g.byRSS {
		return "resident set", g.at, g.need
	}
	return "Go heap", g.at, g.need
}

// stopped reports whether the limit was passed, without sampling.
func (g *memGuard) stopped() bool { return g != nil && g.over.Load() }

// peakBytes is the largest heap sample in bytes.
func (g *memGuard) peakBytes() int64 {
	if g == nil {
		return 0
	}
	return g.peak.Load()
}

// rssPeakBytes is the largest resident set sample in bytes.
func (g *memGuard) rssPeakBytes() int64 {
	if g == nil {
		return 0
	}
	return g.rssPeak.Load()
}

// ResidentBytes is the process's resident set in bytes
// (/proc/self/statm), or 0 when it cannot be read.
func ResidentBytes() int64 { return residentBytes(statmPath("/")) }

// HeapBytes is the Go heap in use by objects, live or not yet swept: the
// figure a search's memory guard compares with its bound.
func HeapBytes() int64 { return heapBytes() }

// MemoryPass is what passed a memory bound: the measure ("Go heap" or
// "resident set") and its sample in bytes.
type MemoryPass struct {
	What string
	At   int64
}

// WatchMemory compares the Go heap and the resident set with limit bytes
// every interval, as a search's guard does, until ctx is done or one of
// them passes limit; then it calls over once, with what passed it, and
// returns. It returns at once when limit is not positive.
func WatchMemory(ctx context.Context, limit int64, every time.Duration, over func(MemoryPass)) {
	g := newMemGuard(limit, "")
	if g == nil {
		return
	}
	g.every = 0
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if g.check(0) {
			what, at, _ := g.passedBy()
			over(MemoryPass{What: what, At: at})
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
