package checker

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// BFS explores every state of m reachable from m.Init(), breadth first, with
// opt.Workers goroutines, checking the selected properties: invariants on
// every distinct state, quiescence properties on every distinct quiescent
// state, transition properties on every generated transition (duplicates
// included). It never panics on a model's Apply error: the error is returned
// in Result.Err.
//
// The search is level-synchronous. Each level runs in two phases:
//
//  1. Expand: workers take chunks of the level's states in ascending order,
//     check them, generate their successors, fingerprint each with
//     core.Fingerprint(m.Encode(buf, s)) and keep those not in the visited
//     set (read-only in this phase) as candidates, bucketed by visited-set
//     shard, each tagged with the key (index of the parent in the level,
//     index of the action in m.Actions(parent)).
//  2. Insert: each shard's candidates are put in key order and inserted by
//     one worker; the first insertion of a fingerprint wins, so every new
//     state gets the smallest key that generates it. The next level is the
//     winners sorted by key: exactly the order of a sequential BFS.
//
// Counterexamples come from parent links kept outside the visited set: one
// uint64 key per distinct state, in one array per level (8 bytes per state),
// while only the current level's states are kept. A violation's state is
// traced back through the keys to its initial state, then the path is
// replayed forward to recover the actions. Because levels are ordered as a
// sequential BFS orders them and the first violation of a level (in that
// order) is reported, counts and counterexamples do not depend on the number
// of workers: each counterexample is the first shortest one a sequential
// BFS would find.
//
// With Options.Symmetry and a Symmetric model, the visited set is keyed by
// canonical representatives while the levels hold the real successor states
// (the first one found of each class, in key order), so counterexamples are
// still shortest paths of the model (a shortest path in the quotient has the
// length of a shortest real one).
//
// When an Eventually property is selected, BFS runs the explicit-graph
// search of eventually.go instead (sequential, no symmetry or POR), which
// checks the other properties with the same semantics and finds lassos.
func BFS[S any](m Model[S], opt Options) *Result {
	w := opt.Workers
	if w <= 0 {
		w = runtime.NumCPU()
	}
	opt.Mode = BreadthFirst
	x := newSearch(m, opt)
	x.res.Workers = w
	if opt.Lassos {
		return x.finish(StopError, errors.New("checker: lassos need a depth-first search (DFS)"))
	}
	if err := x.verifyResume(); err != nil {
		return x.refuse(err)
	}
	defer x.closeCheckpoints()
	stop, err := x.begin()
	if err != nil {
		return x.finish(StopError, err)
	}
	defer stop()
	if err := x.splitRefusal(); err != nil {
		return x.finish(StopError, err)
	}
	if len(x.ps.ev) > 0 {
		if err := x.openCheckpoints(); err != nil {
			return x.refuse(err)
		}
		return x.graphSearch()
	}
	x.workers = make([]*bfsWorker[S], w)
	for i := range x.workers {
		x.workers[i] = &bfsWorker[S]{id: int32(i)}
	}
	x.setupPOR()
	if x.por == nil {
		x.codec = codecOf(m, opt)
	}
	x.res.Compact = x.codec != nil
	if err := x.openCheckpoints(); err != nil {
		return x.refuse(err)
	}
	return x.run()
}

const (
	chunkSize = 256
	memEvery  = 4  // chunks between memory samples under a memory bound
	actBits   = 24 // bits of an action index in a key
	actMask   = 1<<actBits - 1
)

// newSearch sets up what BFS and DFS share.
func newSearch[S any](m Model[S], opt Options) *search[S] {
	bound, from := memoryBound(opt)
	x := &search[S]{m: m, opt: opt, start: time.Now(), mem: newMemGuard(bound, opt.machineRoot)}
	x.key, x.sym = newKeyer(m, opt)
	x.rec = recyclerOf(m)
	x.res = &Result{Model: m.Name(), Workers: 1, Mode: opt.Mode, Symmetry: x.sym, MemoryBound: bound, MemoryFrom: from}
	return x
}

// begin selects the properties to check and starts the progress reporter
// (Options.Progress); stop ends it with a last report.
func (x *search[S]) begin() (stop func(), err error) {
	ps, err := selectProperties(x.m.Properties(), x.opt.Properties)
	if err != nil {
		return nil, err
	}
	x.ps = ps
	x.violated = make([]bool, len(ps.all))
	if x.opt.Progress == nil {
		return func() {}, nil
	}
	done := make(chan struct{})
	exited := make(chan struct{})
	go x.progressLoop(done, exited)
	return func() {
		close(done)
		<-exited
		if !x.ck.refused {
			x.opt.Progress(x.stats())
		}
	}, nil
}

type search[S any] struct {
	m        Model[S]
	opt      Options
	key      keyer[S] // visited-set keys (canonical under symmetry)
	sym      bool     // key is canonical
	mem      *memGuard
	ps       *propSet[S]
	start    time.Time
	res      *Result
	workers  []*bfsWorker[S]
	por      *porSearch[S] // Options.POR in effect (BFS)
	visited  fpSet
	inits    []S
	frontier []S
	codec    Codec[S]    // compact frontier (codec.go): the level is q, not frontier
	rec      Recycler[S] // the model's, when it recycles states (recycle.go); else nil
	q        *queue
	qStates  int64      // states queued over all levels (compact frontier)
	levelGen int64      // generated at the start of the current level
	lastCkpt time.Time  // when the last checkpoint was written (or the start)
	ck       ckState    // checkpoint directories, locks, the resumed file
	links    [][]uint64 // links[d][i]: key of state i of level d (init index at d=0)
	violated []bool     // by property index; written only between levels
	canceled atomic.Bool
	// splitting: the level being expanded is Options.Split's (shard.go);
	// splitReached: the search got there.
	splitting, splitReached bool

	wins    [numShards][]node[S]
	scratch [numShards][]cand[S]

	// progress counters
	generated atomic.Int64
	distinct  atomic.Int64
	queue     atomic.Int64
	depth     atomic.Int64
}

// cand is a successor not in the visited set: the state itself, or (compact
// frontier) its encoding in worker w's arena, at (off, n) (arena.at).
type cand[S any] struct {
	fp, key uint64
	s       S
	off     int64
	n, w    int32
}

type node[S any] struct {
	key  uint64
	s    S
	off  int64
	n, w int32
}

// vrec locates the first violation of a property met by one worker.
type vrec struct {
	pos, act int // act is -1 for a state property
	err      error
}

type bfsWorker[S any] struct {
	id    int32
	arena arena  // compact frontier: encodings of this level's candidates
	rbuf  []byte // compact frontier: a spilled block read back
	out   [numShards][]cand[S]
	pend  []cand[S] // successors of the current chunk
	sink  uint64    // keeps filter's touch loop from being optimised away
	acts  []Action
	buf   []byte
	pbuf  []byte       // key bytes of the state being expanded
	keep  bool         // a transition check failed in this chunk: recycle none of its successors
	viol  map[int]vrec // by property index
	apply *vrec
	open  bool // an unexpanded state has an enabled action
	// expanded, with Options.Split, lists the states this worker expanded
	// and their out-degrees (shard.go).
	expanded []Expansion
}

func (x *search[S]) run() *Result {
	x.inits = x.m.Init()
	x.generated.Add(int64(len(x.inits)))
	var level0 []uint64
	var buf []byte
	if x.codec != nil {
		x.q = x.newQueue()
	}
	x.lastCkpt = time.Now()
	start := 0
	if x.opt.Resume != "" {
		d, err := x.resume()
		if err != nil {
			return x.finish(StopError, err)
		}
		start = d
		x.inits = nil // not counted again
	}
	for i, s := range x.inits {
		fp := x.fingerprint(&buf, s)
		if x.visited.shards[shardOf(fp)].insert(fp) {
			if x.q != nil {
				buf = x.codec.Encode(buf[:0], s)
				if err := x.q.push(buf); err != nil {
					return x.finish(StopError, err)
				}
			} else {
				x.frontier = append(x.frontier, s)
			}
			level0 = append(level0, uint64(i))
		}
	}
	if x.opt.Resume != "" {
		x.inits = x.m.Init()
	} else {
		x.links = append(x.links, level0)
		x.distinct.Store(int64(x.levelLen()))
	}
	if x.por != nil {
		x.startPOR()
	}
	for d := start; x.levelLen() > 0; d++ {
		x.res.Depth = d
		x.depth.Store(int64(d))
		x.queue.Store(int64(x.levelLen()))
		x.noteQueue()
		x.splitLevel(d)
		if err := x.levelStart(d); err != nil {
			return x.finish(StopError, err)
		}
		expand, bound := true, StopDone
		if x.opt.MaxDepth > 0 && d >= x.opt.MaxDepth {
			expand, bound = false, StopMaxDepth
		}
		if x.opt.MaxStates > 0 && x.visited.len() >= x.opt.MaxStates {
			expand, bound = false, StopMaxStates
		}
		if x.por != nil {
			x.expandPOR(expand)
		} else {
			x.expand(expand)
		}
		if err := x.collect(d); err != nil {
			return x.finish(StopError, err)
		}
		if x.canceled.Load() {
			if x.opt.CheckpointDir != "" {
				if err := x.writeCheckpoint(d); err != nil {
					return x.finish(StopError, err)
				}
			}
			return x.finish(StopCanceled, x.opt.Context.Err())
		}
		if x.mem.stopped() {
			return x.finish(StopMaxMemory, nil)
		}
		if len(x.res.Violations) > 0 && (!x.opt.ContinueAfterViolation || x.allViolated()) {
			return x.finish(StopViolation, nil)
		}
		if !expand {
			open := false
			for _, w := range x.workers {
				open = open || w.open
			}
			if open {
				return x.finish(bound, nil)
			}
			return x.finish(StopDone, nil)
		}
		if x.mem != nil && x.mem.check(x.insertNeed()) {
			return x.finish(StopMaxMemory, nil)
		}
		if x.por != nil {
			x.insertPOR()
		} else if err := x.insert(); err != nil {
			return x.finish(StopError, err)
		}
	}
	return x.finish(StopDone, nil)
}

// insertNeed estimates the bytes phase 2 is about to allocate: merged
// candidate lists, winners, the next level and its links, and the growth of
// every shard that may pass its load.
func (x *search[S]) insertNeed() int64 {
	var c int64
	for _, w := range x.workers {
		for b := range w.out {
			c += int64(len(w.out[b]))
		}
	}
	var cd cand[S]
	var nd node[S]
	var s S
	per := int64(unsafe.Sizeof(cd)) + int64(unsafe.Sizeof(nd)) + int64(unsafe.Sizeof(s)) + 8
	if x.q != nil && x.qStates > 0 {
		// The next level's encodings, at the mean size so far.
		per = int64(unsafe.Sizeof(nd)) + x.res.QueueBytes/x.qStates + 8
	}
	return c*per + x.visited.bytes()/2 + c*16
}

// allViolated reports whether every checked property has failed already.
func (x *search[S]) allViolated() bool {
	for _, list := range [][]int{x.ps.inv, x.ps.quiet, x.ps.trans, x.ps.ev} {
		for _, i := range list {
			if !x.violated[i] {
				return false
			}
		}
	}
	return true
}

func (x *search[S]) finish(why StopReason, err error) *Result {
	r := x.res
	r.Stop = why
	r.Err = err
	r.Complete = why == StopDone
	r.States = x.visited.len()
	r.Transitions = x.generated.Load()
	r.VisitedBytes = x.visited.bytes()
	r.Seconds = x.elapsed().Seconds()
	r.HeapBytes, r.RSSBytes = x.mem.peakBytes(), x.mem.rssPeakBytes()
	x.q.close()
	if x.por != nil {
		r.Slept, r.Reexpanded = x.por.slept.Load(), x.por.reexp.Load()
	}
	if why == StopMaxMemory {
		r.Hint = memoryHint(r, x.mem)
	}
	x.splitFinish(r)
	if x.opt.Shrink {
		for i, tr := range r.Violations {
			if tr.Loop == 0 {
				r.Violations[i] = Shrink(x.m, tr)
			}
		}
	}
	n, g := float64(r.States), float64(r.Transitions)
	r.CollisionProb = n * max(g-n, 0) / 0x1p64
	r.CollisionBound = n * n / 0x1p65
	slices.SortStableFunc(r.Violations, func(a, b *Trace) int {
		return len(a.Steps) - len(b.Steps)
	})
	return r
}

// expand runs phase 1 on the current level.
func (x *search[S]) expand(expand bool) {
	nChunks := (x.levelLen() + chunkSize - 1) / chunkSize
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, w := range x.workers {
		w.open = false
		wg.Go(func() { x.expandChunks(w, &next, nChunks, expand) })
	}
	wg.Wait()
}

func (x *search[S]) expandChunks(w *bfsWorker[S], next *atomic.Int64, nChunks int, expand bool) {
	m, f := x.m, x.frontier
	ctx := x.opt.Context
	for {
		c := int(next.Add(1) - 1)
		if c >= nChunks {
			return
		}
		if ctx != nil && ctx.Err() != nil {
			x.canceled.Store(true)
			return
		}
		if x.mem != nil && (c%memEvery == 0 && x.mem.check(0) || x.mem.stopped()) {
			return
		}
		lo, hi := c*chunkSize, min((c+1)*chunkSize, x.levelLen())
		var gen int64
		var data []byte
		var ends []uint32
		if x.q != nil {
			var err error
			if data, ends, err = x.q.read(c, &w.rbuf); err != nil {
				w.applyErr(lo, -1, err)
				continue
			}
		}
		for i := lo; i < hi; i++ {
			var s S
			if x.q != nil {
				var err error
				if s, err = x.codec.Decode(at(data, ends, i-lo)); err != nil {
					w.applyErr(i, -1, fmt.Errorf("decoding a queued state: %w", err))
					continue
				}
			} else {
				s = f[i]
			}
			x.checkState(w, i, s)
			if x.splitSkips(&w.pbuf, s) {
				continue
			}
			w.acts = m.Actions(s, w.acts[:0])
			if !expand {
				w.open = w.open || len(w.acts) > 0
				continue
			}
			if len(w.acts) > actMask {
				w.applyErr(i, 0, fmt.Errorf("%d actions enabled, more than %d", len(w.acts), actMask))
				continue
			}
			gen += int64(len(w.acts))
			// s is in the visited set: a successor with its key (a
			// stuttering step) needs no lookup.
			pfp := x.fingerprint(&w.pbuf, s)
			if x.opt.Split != nil {
				w.expanded = append(w.expanded, Expansion{FP: pfp, Out: uint32(len(w.acts))})
			}
			for ai, a := range w.acts {
				ns, err := m.Apply(s, a)
				if err != nil {
					w.applyErr(i, ai, err)
					continue
				}
				clean := x.checkStep(w, i, ai, s, a, ns)
				w.keep = w.keep || !clean
				fp := x.fingerprint(&w.buf, ns)
				if fp == pfp {
					if clean && x.rec != nil {
						x.rec.Recycle(ns)
					}
					continue
				}
				w.pend = append(w.pend, cand[S]{fp: fp, key: uint64(i)<<actBits | uint64(ai), s: ns})
			}
		}
		x.filter(w)
		x.generated.Add(gen)
		x.queue.Add(int64(lo - hi))
	}
}

// filter moves the chunk's successors that are not in the visited set to
// the worker's per-shard candidate lists. It first touches every home slot
// with independent loads, so that the cache misses of a chunk overlap
// instead of being paid one after the other by the probing loop. With a
// Recycler model (and no failed transition check in the chunk), the
// successors dropped here (visited, or encoded into the arena) are
// recycled.
func (x *search[S]) filter(w *bfsWorker[S]) {
	var sink uint64
	for _, c := range w.pend {
		sh := &x.visited.shards[shardOf(c.fp)]
		if n := len(sh.slots); n > 0 {
			sink += sh.slots[home(c.fp, n)]
		}
	}
	w.sink += sink
	rec := x.rec
	if w.keep {
		rec = nil
	}
	for _, c := range w.pend {
		b := shardOf(c.fp)
		if x.visited.shards[b].contains(c.fp) {
			if rec != nil {
				rec.Recycle(c.s)
			}
			continue
		}
		if x.q != nil {
			off, n := w.arena.done(x.codec.Encode(w.arena.room(), c.s))
			if rec != nil {
				rec.Recycle(c.s)
			}
			var zero S
			c.s, c.off, c.n, c.w = zero, off, n, w.id
		}
		w.out[b] = append(w.out[b], c)
	}
	w.keep = false
	clear(w.pend)
	w.pend = w.pend[:0]
}

// record keeps the first violation of property p met by this worker: chunks
// are taken in ascending order, so it is the worker's smallest position.
// checkState checks the invariants on s, the frontier's state at pos, and
// the quiescence properties when s is quiescent, recording each violation
// of a property not yet violated. BFS and its sleep-set variant share it.
func (x *search[S]) checkState(w *bfsWorker[S], pos int, s S) {
	ps := x.ps
	for _, p := range ps.inv {
		if !x.violated[p] {
			if err := ps.all[p].Check(s); err != nil {
				w.record(p, pos, -1, err)
			}
		}
	}
	if len(ps.quiet) > 0 && x.m.Quiescent(s) {
		for _, p := range ps.quiet {
			if !x.violated[p] {
				if err := ps.all[p].Check(s); err != nil {
					w.record(p, pos, -1, err)
				}
			}
		}
	}
}

// checkStep checks the transition properties on (s, a, ns), where a is
// the act-th action of the frontier's state at pos, and reports whether
// every check passed.
func (x *search[S]) checkStep(w *bfsWorker[S], pos, act int, s S, a Action, ns S) bool {
	ps := x.ps
	clean := true
	for _, p := range ps.trans {
		if !x.violated[p] {
			if err := ps.all[p].CheckStep(s, a, ns); err != nil {
				w.record(p, pos, act, err)
				clean = false
			}
		}
	}
	return clean
}

func (w *bfsWorker[S]) record(p, pos, act int, err error) {
	if w.viol == nil {
		w.viol = make(map[int]vrec)
	}
	if _, ok := w.viol[p]; !ok {
		w.viol[p] = vrec{pos: pos, act: act, err: err}
	}
}

func (w *bfsWorker[S]) applyErr(pos, act int, err error) {
	if w.apply == nil {
		w.apply = &vrec{pos: pos, act: act, err: err}
	}
}
