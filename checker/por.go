package checker

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// BFS with sleep sets (Options.POR); independence.go has the method and the
// argument. The level structure, keys, parent links, property checks and
// counterexamples are BFS's; what differs:
//
//   - every frontier entry has a sleep set, and re-expansion entries (states
//     of earlier levels reached again with a smaller sleep set) also a todo
//     list: the only actions they take;
//   - candidates carry their sleep sets, and a candidate whose state is
//     already visited is kept (not filtered) unless the sleep set stored for
//     it is a subset of the candidate's: it may trigger a re-expansion;
//   - stored sleep sets live in one map per visited-set shard, keyed by
//     fingerprint, holding only non-empty sets (a visited state without an
//     entry has the empty set, which no arrival can shrink).
//
// Phase 2 handles a shard's candidates in key order: the first arrival of a
// fingerprint gives the level's entry its state and key (as in BFS); the
// sleep sets of all its arrivals of the level are intersected. Intersection
// does not depend on order and candidates are merged by key, so counts do
// not depend on the number of workers.

type porSearch[S any] struct {
	ind     Independence[S]
	stored  [numShards]map[uint64][]Action
	fsleep  [][]Action // frontier entry i expands with sleep set fsleep[i]
	ftodo   [][]Action // nil, or the only actions entry i takes (re-expansion)
	fold    []bool     // entry i is a re-expansion, not a new state
	workers []*porWorker[S]
	wins    [numShards][]porNode[S]
	slept   atomic.Int64
	reexp   atomic.Int64
}

type porCand[S any] struct {
	fp, key uint64
	s       S
	sleep   []Action
}

type porNode[S any] struct {
	fp, key     uint64
	s           S
	sleep, todo []Action
	old         bool
}

type porWorker[S any] struct {
	out  [numShards][]porCand[S]
	pend []porCand[S]
	take []int    // indexes into acts of the actions taken
	done []Action // actions taken so far in the current expansion
	tmp  []Action
}

func cmpAction(a, b Action) int {
	if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	if c := cmp.Compare(a.P, b.P); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Q, b.Q); c != 0 {
		return c
	}
	return cmp.Compare(a.I, b.I)
}

// hasAction reports whether sorted set z holds a.
func hasAction(z []Action, a Action) bool {
	_, ok := slices.BinarySearchFunc(z, a, cmpAction)
	return ok
}

// subset reports whether sorted a ⊆ sorted b.
func subset(a, b []Action) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && cmpAction(b[j], x) < 0 {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
		j++
	}
	return true
}

// intersect returns sorted a ∩ b in a new slice (nil when empty).
func intersect(a, b []Action) []Action {
	var out []Action
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := cmpAction(a[i], b[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// minus returns sorted a \ b (nil when empty).
func minus(a, b []Action) []Action {
	var out []Action
	for _, x := range a {
		if !hasAction(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// setupPOR decides whether the search is reduced and prepares it.
func (x *search[S]) setupPOR() {
	if !x.opt.POR {
		return
	}
	ind, ok := x.m.(Independence[S])
	switch {
	case !ok:
		x.res.PORNote = "the model has no independence relation (checker.Independence)"
		return
	case x.sym:
		x.res.PORNote = "not combined with symmetry reduction"
		return
	}
	if p := x.ps.porBlocker(); p != "" {
		x.res.PORNote = fmt.Sprintf("transition property %q does not declare what it reads (Property.Reads)", p)
		return
	}
	p := &porSearch[S]{ind: ind, workers: make([]*porWorker[S], len(x.workers))}
	for i := range p.workers {
		p.workers[i] = &porWorker[S]{}
	}
	for i := range p.stored {
		p.stored[i] = map[uint64][]Action{}
	}
	x.por = p
	x.res.POR = true
}

// startPOR gives the initial level its (empty) sleep sets.
func (x *search[S]) startPOR() {
	n := len(x.frontier)
	x.por.fsleep, x.por.ftodo, x.por.fold = make([][]Action, n), make([][]Action, n), make([]bool, n)
}

// expandPOR is phase 1 under POR.
func (x *search[S]) expandPOR(expand bool) {
	nChunks := (len(x.frontier) + chunkSize - 1) / chunkSize
	var next atomic.Int64
	var wg sync.WaitGroup
	for i, w := range x.workers {
		w.open = false
		pw := x.por.workers[i]
		wg.Go(func() { x.expandChunksPOR(w, pw, &next, nChunks, expand) })
	}
	wg.Wait()
}

func (x *search[S]) expandChunksPOR(w *bfsWorker[S], pw *porWorker[S], next *atomic.Int64, nChunks int, expand bool) {
	m, f, por := x.m, x.frontier, x.por
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
		lo, hi := c*chunkSize, min((c+1)*chunkSize, len(f))
		var gen, slept int64
		for i := lo; i < hi; i++ {
			s, sleep, todo := f[i], por.fsleep[i], por.ftodo[i]
			if !por.fold[i] {
				x.checkState(w, i, s)
			}
			w.acts = m.Actions(s, w.acts[:0])
			pw.take = pw.take[:0]
			for ai, a := range w.acts {
				if todo != nil && hasAction(todo, a) || todo == nil && !hasAction(sleep, a) {
					pw.take = append(pw.take, ai)
				}
			}
			if !expand {
				w.open = w.open || len(pw.take) > 0
				continue
			}
			if len(w.acts) > actMask {
				w.applyErr(i, 0, fmt.Errorf("%d actions enabled, more than %d", len(w.acts), actMask))
				continue
			}
			if todo == nil {
				slept += int64(len(w.acts) - len(pw.take))
			} else {
				slept -= int64(len(pw.take))
			}
			gen += int64(len(pw.take))
			pfp := x.fingerprint(&w.pbuf, s)
			pw.done = pw.done[:0]
			for _, ai := range pw.take {
				a := w.acts[ai]
				ns, err := m.Apply(s, a)
				if err != nil {
					w.applyErr(i, ai, err)
					continue
				}
				x.checkStep(w, i, ai, s, a, ns)
				// The successor's sleep set: the actions of s's sleep set
				// and those taken before a, independent of a in s.
				pw.tmp = pw.tmp[:0]
				for _, z := range [2][]Action{sleep, pw.done} {
					for _, b := range z {
						if por.ind.Independent(s, a, b) {
							pw.tmp = append(pw.tmp, b)
						}
					}
				}
				pw.done = append(pw.done, a)
				// The same fingerprint function as BFS's visited set
				// (the model's Fingerprinter when it has one).
				fp := x.fingerprint(&w.buf, ns)
				if fp == pfp {
					continue
				}
				var z []Action
				if len(pw.tmp) > 0 {
					z = slices.Clone(pw.tmp)
					slices.SortFunc(z, cmpAction)
				}
				pw.pend = append(pw.pend, porCand[S]{fp: fp, key: uint64(i)<<actBits | uint64(ai), s: ns, sleep: z})
			}
		}
		x.filterPOR(pw)
		x.generated.Add(gen)
		por.slept.Add(slept)
		x.queue.Add(int64(lo - hi))
	}
}

// filterPOR keeps the candidates that are new, or visited with a stored
// sleep set that is not a subset of theirs (read-only phase).
func (x *search[S]) filterPOR(pw *porWorker[S]) {
	for _, c := range pw.pend {
		b := shardOf(c.fp)
		if x.visited.shards[b].contains(c.fp) {
			z, ok := x.por.stored[b][c.fp]
			if !ok || subset(z, c.sleep) {
				continue
			}
		}
		pw.out[b] = append(pw.out[b], c)
	}
	clear(pw.pend)
	pw.pend = pw.pend[:0]
}

// insertPOR is phase 2 under POR.
func (x *search[S]) insertPOR() {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range x.workers {
		wg.Go(func() {
			for {
				b := int(next.Add(1) - 1)
				if b >= numShards {
					return
				}
				x.insertShardPOR(b)
			}
		})
	}
	wg.Wait()
	x.nextLevelPOR()
	x.distinct.Store(x.visited.len())
}

func (x *search[S]) insertShardPOR(b int) {
	por := x.por
	var cs []porCand[S]
	for _, pw := range por.workers {
		cs = mergePOR(cs, pw.out[b])
		clear(pw.out[b])
		pw.out[b] = pw.out[b][:0]
	}
	sh := &x.visited.shards[b]
	stored := por.stored[b]
	win := por.wins[b]
	start := len(win)
	at := map[uint64]int{} // fingerprint → its node in win
	for _, c := range cs {
		if j, ok := at[c.fp]; ok {
			win[j].sleep = intersect(win[j].sleep, c.sleep)
			continue
		}
		at[c.fp] = len(win)
		old := !sh.insert(c.fp)
		win = append(win, porNode[S]{fp: c.fp, key: c.key, s: c.s, sleep: c.sleep, old: old})
	}
	// Settle the level's arrivals against the stored sets.
	n := start
	for _, nd := range win[start:] {
		fp := nd.fp
		if !nd.old {
			if len(nd.sleep) > 0 {
				stored[fp] = nd.sleep
			}
			win[n] = nd
			n++
			continue
		}
		z := stored[fp]
		nd.todo = minus(z, nd.sleep)
		if len(nd.todo) == 0 {
			continue
		}
		nd.sleep = intersect(z, nd.sleep)
		if len(nd.sleep) > 0 {
			stored[fp] = nd.sleep
		} else {
			delete(stored, fp)
		}
		win[n] = nd
		n++
	}
	clear(win[n:])
	por.wins[b] = win[:n]
}

// mergePOR merges two lists sorted by key into a new one.
func mergePOR[S any](a, b []porCand[S]) []porCand[S] {
	if len(a) == 0 {
		return slices.Clone(b)
	}
	if len(b) == 0 {
		return a
	}
	out := make([]porCand[S], 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i].key < b[j].key {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// nextLevelPOR makes the winners of all shards, in key order, the next
// level, with their sleep sets, todo lists and parent links.
func (x *search[S]) nextLevelPOR() {
	por := x.por
	var all []porNode[S]
	for b := range por.wins {
		all = append(all, por.wins[b]...)
		clear(por.wins[b])
		por.wins[b] = por.wins[b][:0]
	}
	slices.SortFunc(all, func(a, b porNode[S]) int { return cmp.Compare(a.key, b.key) })
	n := len(all)
	f, links := make([]S, n), make([]uint64, n)
	por.fsleep, por.ftodo, por.fold = make([][]Action, n), make([][]Action, n), make([]bool, n)
	var re int64
	for i, nd := range all {
		f[i], links[i] = nd.s, nd.key
		por.fsleep[i], por.ftodo[i], por.fold[i] = nd.sleep, nd.todo, nd.old
		if nd.old {
			re++
		}
	}
	por.reexp.Add(re)
	x.frontier, x.links = f, append(x.links, links)
}
