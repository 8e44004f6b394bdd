package checker

import (
	"sync"
	"sync/atomic"
)

// insert runs phase 2 of a level (see BFS): every shard's candidates are
// merged into key order and inserted by one worker, so a state first
// reached from two parents keeps the smaller key; then the winners of all
// shards become the next level, in key order.
func (x *search[S]) insert() error {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range x.workers {
		wg.Go(func() {
			for {
				b := int(next.Add(1) - 1)
				if b >= numShards {
					return
				}
				x.insertShard(b)
			}
		})
	}
	wg.Wait()
	if err := x.nextLevel(); err != nil {
		return err
	}
	x.distinct.Store(x.visited.len())
	return nil
}

// insertShard inserts the candidates of shard b. Each worker's candidates
// are in ascending key order (workers take chunks in ascending order), so
// merging the workers' lists puts them all in key order.
func (x *search[S]) insertShard(b int) {
	var cs []cand[S]
	if len(x.workers) == 1 {
		cs = x.workers[0].out[b]
	} else {
		lists := make([][]cand[S], 0, len(x.workers))
		for _, w := range x.workers {
			if len(w.out[b]) > 0 {
				lists = append(lists, w.out[b])
			}
		}
		cs = x.mergeCands(b, lists)
	}
	sh := &x.visited.shards[b]
	win := x.wins[b]
	for _, c := range cs {
		if sh.insert(c.fp) {
			win = append(win, node[S]{key: c.key, s: c.s, off: c.off, n: c.n, w: c.w})
		}
	}
	x.wins[b] = win
	for _, w := range x.workers {
		clear(w.out[b])
		w.out[b] = w.out[b][:0]
	}
	clear(x.scratch[b])
	x.scratch[b] = x.scratch[b][:0]
}

// mergeCands merges sorted lists by key, pairwise, using the shard's
// scratch buffers (the result aliases one of them or one of the lists).
func (x *search[S]) mergeCands(b int, lists [][]cand[S]) []cand[S] {
	for len(lists) > 1 {
		out := lists[:0:0]
		for i := 0; i+1 < len(lists); i += 2 {
			m := merge2(make([]cand[S], 0, len(lists[i])+len(lists[i+1])), lists[i], lists[i+1])
			out = append(out, m)
		}
		if len(lists)%2 == 1 {
			out = append(out, lists[len(lists)-1])
		}
		lists = out
	}
	if len(lists) == 0 {
		return nil
	}
	// Keep the merged slice as scratch so it is cleared after insertion.
	x.scratch[b] = lists[0]
	return lists[0]
}

func merge2[S any](out, a, b []cand[S]) []cand[S] {
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

// nextLevel makes the winners of all shards, in key order
// (orderedWinners), the next level and its parent links.
func (x *search[S]) nextLevel() error {
	if x.q != nil {
		return x.nextLevelCompact()
	}
	all := x.orderedWinners(len(x.frontier))
	f := make([]S, len(all))
	links := make([]uint64, len(all))
	for i, nd := range all {
		f[i], links[i] = nd.s, nd.key
	}
	x.frontier, x.links = f, append(x.links, links)
	return nil
}

// orderedWinners empties the shards' winners into one slice ordered by
// key: a counting sort on the parent index (nParents parents), then an
// insertion sort of each parent's children by action index, linear in the
// level where a comparison sort of the winners was not.
func (x *search[S]) orderedWinners(nParents int) []node[S] {
	// end[p] is first the start of parent p's children, then, once they
	// are placed, their end.
	end := make([]int32, nParents+1)
	n := 0
	for b := range x.wins {
		for _, nd := range x.wins[b] {
			end[nd.key>>actBits+1]++
		}
		n += len(x.wins[b])
	}
	for i := 1; i <= nParents; i++ {
		end[i] += end[i-1]
	}
	all := make([]node[S], n)
	for b := range x.wins {
		for _, nd := range x.wins[b] {
			p := nd.key >> actBits
			all[end[p]] = nd
			end[p]++
		}
		clear(x.wins[b])
		x.wins[b] = x.wins[b][:0]
	}
	lo := int32(0)
	for p := range nParents {
		hi := end[p]
		for i := lo + 1; i < hi; i++ {
			for j := i; j > lo && all[j].key < all[j-1].key; j-- {
				all[j], all[j-1] = all[j-1], all[j]
			}
		}
		lo = hi
	}
	return all
}
