package checker

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A sharded search splits one breadth-first search into N independent
// runs, one per shard, that a scheduler (a Slurm job array, a Kubernetes
// Indexed Job) may run on different machines, and whose union is the
// whole search:
//
//   - every shard runs BFS identically to depth Split.Depth (0: the
//     initial states), checking every state it finds there;
//   - at that depth it expands only the states whose fingerprint falls in
//     its part (Split.Owns), and explores everything reachable from them,
//     deduplicated against what it has seen;
//   - it reports, with its verdicts and counts, its whole visited set
//     (Result.Fingerprints, sorted).
//
// Every state deeper than Split.Depth lies on a shortest path through a
// state at depth Split.Depth, which one shard owns, so the union of the
// shards' visited sets is the unsharded search's visited set: the distinct
// state count of the union (MergeFingerprints) is exact. The parts are a
// static partition of one BFS level by hash, with no communication while
// the shards run. Stern and Dill's parallel Murφ also partitions by hash,
// but partitions every state and sends each successor to its owner, so no
// state is explored twice; here a state reachable from two parts is
// explored by both (the overlap, which the merge measures). Holzmann's
// swarm verification runs many differently configured searches that are
// not a partition and whose union is not known to be complete; this one
// is, when every shard is complete.
//
// Transitions are exact too: a shard's Transitions counts what it
// generated, so a state reached by two shards is expanded by both, but each
// shard also lists the states it expanded with their out-degrees
// (Result.Expanded). Every state of the unsharded search is expanded by
// some shard, and its out-degree is a function of the state, so the
// unsharded count is the initial states (Result.InitTransitions) plus the
// out-degrees of the union of the lists (MergeExpansions). Counterexamples
// are shortest within a shard, so the shortest over the shards is as short
// as the unsharded search's (not necessarily the same trace).
//
// Supported: BFS with or without symmetry (the parts are then of canonical
// fingerprints), spill, the compact frontier and every invariant,
// quiescence and transition property. Refused (Result.Err): DFS, whose
// visited set with persistent sets depends on the order of exploration;
// partial-order reduction (sleep sets carry over a level and a state not
// expanded would carry its sleep set nowhere); Eventually properties
// (their cycles may cross parts); checkpoints and resume.

// Split is one shard of a sharded BFS: Shard in 0…Shards−1, and Depth, the
// BFS level (0: the initial states) whose states are partitioned.
type Split struct {
	Shard, Shards int
	Depth         int
}

// Owns reports whether a state of fingerprint fp (the visited-set key:
// canonical under symmetry) falls in this shard's part: a SplitMix64 mix
// of fp, modulo Shards. The mix makes the part independent of the visited
// set's own use of the top fingerprint bits.
func (sp *Split) Owns(fp uint64) bool {
	return ShardOf(fp, sp.Shards) == sp.Shard
}

// ShardOf is the part, 0…shards−1, of a state of fingerprint fp.
func ShardOf(fp uint64, shards int) int {
	z := fp + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return int(z % uint64(shards))
}

// ParseShard reads "K/N" (shard K of N, 0 ≤ K < N, 1 ≤ N ≤ 1<<20).
func ParseShard(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, fmt.Errorf("%q: want K/N, shard K of N (e.g. 3/16)", s)
	}
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, fmt.Errorf("%q: want K/N with integers K and N (e.g. 3/16)", s)
	case n < 1 || n > 1<<20:
		return 0, 0, fmt.Errorf("%q: want 1 ≤ N ≤ %d shards", s, 1<<20)
	case k < 0 || k >= n:
		return 0, 0, fmt.Errorf("%q: want 0 ≤ K < N (shards are numbered from 0)", s)
	}
	return k, n, nil
}

// splitRefusal is the error of a search that Options.Split cannot shard
// exactly, or nil.
func (x *search[S]) splitRefusal() error {
	sp := x.opt.Split
	switch {
	case sp == nil:
		return nil
	case sp.Shards < 1 || sp.Shard < 0 || sp.Shard >= sp.Shards || sp.Depth < 0:
		return fmt.Errorf("checker: split %d/%d at depth %d: want 0 ≤ shard < shards and depth ≥ 0", sp.Shard, sp.Shards, sp.Depth)
	case x.opt.Mode == DepthFirst:
		return errors.New("checker: a sharded search is breadth-first: DFS's visited set depends on its order of exploration")
	case x.opt.POR:
		return errors.New("checker: a sharded search does not take partial-order reduction (sleep sets do not partition)")
	case len(x.ps.ev) > 0:
		return errors.New("checker: a sharded search does not check Eventually properties (their cycles may cross parts)")
	case x.opt.CheckpointDir != "" || x.opt.Resume != "":
		return errors.New("checker: a sharded search does not write or resume checkpoints (rerun the shard instead)")
	}
	return nil
}

// splitSkips reports whether the expansion of s, at position i of the level
// being expanded, is left to another shard: the level is Split.Depth and
// the state's fingerprint falls in another part.
func (x *search[S]) splitSkips(buf *[]byte, s S) bool {
	return x.splitting && !x.opt.Split.Owns(x.fingerprint(buf, s))
}

// splitLevel marks the start of level d: at Split.Depth the states found so
// far (levels 0…d) and the states generated so far are the prefix every
// shard shares.
func (x *search[S]) splitLevel(d int) {
	sp := x.opt.Split
	x.splitting = sp != nil && d == sp.Depth
	if x.splitting {
		x.splitReached = true
		x.res.SplitStates = x.visited.len()
		x.res.SplitTransitions = x.generated.Load()
	}
}

// splitFinish sets Result.Fingerprints, Expanded and InitTransitions for a
// sharded search.
func (x *search[S]) splitFinish(r *Result) {
	if x.opt.Split == nil {
		return
	}
	for _, w := range x.workers {
		r.Expanded = append(r.Expanded, w.expanded...)
	}
	slices.SortFunc(r.Expanded, func(a, b Expansion) int { return cmp.Compare(a.FP, b.FP) })
	r.InitTransitions = int64(len(x.inits))
	if !x.splitReached {
		// The search ended before the split depth: every shard ran the
		// same whole search, and all of it is the shared prefix.
		r.SplitStates, r.SplitTransitions = r.States, r.Transitions
	}
	r.Fingerprints = x.visited.sorted()
}

// sorted returns every fingerprint in the set, ascending.
func (s *fpSet) sorted() []uint64 {
	out := make([]uint64, 0, s.len())
	for i := range s.shards {
		t := &s.shards[i]
		if t.hasZero {
			out = append(out, 0)
		}
		for _, v := range t.slots {
			if v != 0 {
				out = append(out, v)
			}
		}
	}
	slices.Sort(out)
	return out
}

// MergeFingerprints returns the size of the union of sorted, duplicate-free
// fingerprint streams (each next returns its fingerprints in ascending
// order, then false), and the overlap: the sum of their sizes less the
// union. It holds one fingerprint per stream in memory.
func MergeFingerprints(next []func() (uint64, bool)) (union, overlap int64) {
	h := make(fpHeap, 0, len(next))
	for i, f := range next {
		if fp, ok := f(); ok {
			h = append(h, fpHead{fp, i})
		}
	}
	heap.Init(&h)
	var total int64
	last, any := uint64(0), false
	for len(h) > 0 {
		top := h[0]
		total++
		if !any || top.fp != last {
			union++
			last, any = top.fp, true
		}
		if fp, ok := next[top.src](); ok {
			h[0].fp = fp
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return union, total - union
}

// Expansion is a state a shard expanded: its fingerprint (the visited-set
// key) and the number of transitions it generated (its enabled actions).
type Expansion struct {
	FP  uint64
	Out uint32
}

// MergeExpansions returns the sum of the out-degrees of the union of
// sorted, duplicate-free expansion streams (each next returns its
// expansions by ascending fingerprint, then false). Two streams that give
// one fingerprint different out-degrees are an error: the model is not
// deterministic, or two states share a fingerprint.
func MergeExpansions(next []func() (Expansion, bool)) (int64, error) {
	heads := make([]Expansion, len(next))
	live := make([]bool, len(next))
	for i, f := range next {
		heads[i], live[i] = f()
	}
	var sum int64
	for {
		lo := -1
		for i := range heads {
			if live[i] && (lo < 0 || heads[i].FP < heads[lo].FP) {
				lo = i
			}
		}
		if lo < 0 {
			return sum, nil
		}
		e := heads[lo]
		sum += int64(e.Out)
		for i := range heads {
			if !live[i] || heads[i].FP != e.FP {
				continue
			}
			if heads[i].Out != e.Out {
				return sum, fmt.Errorf("checker: state %016x expanded with %d transitions in one shard and %d in another (a nondeterministic model or a fingerprint collision)", e.FP, e.Out, heads[i].Out)
			}
			heads[i], live[i] = next[i]()
		}
	}
}

// SliceStream is a MergeFingerprints stream over a sorted slice.
func SliceStream(fps []uint64) func() (uint64, bool) {
	i := 0
	return func() (uint64, bool) {
		if i == len(fps) {
			return 0, false
		}
		i++
		return fps[i-1], true
	}
}

type fpHead struct {
	fp  uint64
	src int
}

type fpHeap []fpHead

func (h fpHeap) Len() int           { return len(h) }
func (h fpHeap) Less(i, j int) bool { return h[i].fp < h[j].fp }
func (h fpHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *fpHeap) Push(x any)        { *h = append(*h, x.(fpHead)) }
func (h *fpHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
