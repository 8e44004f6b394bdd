package ringfd

import (
	"slices"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// Order is the order in which a daemon sends its BMG messages.
type Order uint8

const (
	// Interleaved is Algorithm 1's loop: +1, −1, +2, −2, +4, −4, …
	Interleaved Order = iota
	// TreeFirst sends the binomial spanning tree's messages first
	// (+1, +2, +4, …), then the others (−1, −2, −4, …): §4.6, "ordered so
	// that the messages that are part of a binomial spanning tree rooted at
	// the emitter are sent first".
	TreeFirst
)

// TelephoneCoverage is the time at which the last daemon learns a failure
// that daemon `from` broadcasts, in the telephone cost model of spec Q12:
// each daemon, from the time it is informed, makes one send per time unit
// in its BMG order, and a message takes one time unit. No failures. With
// literal (Interleaved only) the loop's duplicate and self-sends each take
// their slot.
func TelephoneCoverage(n, from int, order Order, literal bool) int {
	cfg, err := fd.Normalize(fd.Config{N: n, LiteralLoop: literal && order == Interleaved})
	if err != nil || n < 2 {
		return 0
	}
	sends := make([][]core.Rank, n)
	for i := range sends {
		if order == Interleaved {
			sends[i] = cfg.Targets(core.Rank(i), core.RankSet{})
			continue
		}
		var list []core.Rank
		for _, dir := range []int{+1, -1} {
			for k := 1; k < n; k *= 2 {
				t := core.Rank(((i+dir*k)%n + n) % n)
				if t != core.Rank(i) && !slices.Contains(list, t) {
					list = append(list, t)
				}
			}
		}
		sends[i] = list
	}
	const inf = int(^uint(0) >> 1)
	informed := make([]int, n)
	for i := range informed {
		informed[i] = inf
	}
	informed[from] = 0
	done := make([]bool, n)
	for {
		// Dijkstra: the earliest informed daemon not yet expanded.
		u := -1
		for i := range informed {
			if !done[i] && informed[i] != inf && (u < 0 || informed[i] < informed[u]) {
				u = i
			}
		}
		if u < 0 {
			break
		}
		done[u] = true
		for k, v := range sends[u] {
			if at := informed[u] + k + 1; at < informed[v] {
				informed[v] = at
			}
		}
	}
	last := 0
	for _, t := range informed {
		last = max(last, t)
	}
	return last
}
