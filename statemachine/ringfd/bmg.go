package ringfd

import (
	"math/bits"

	"github.com/ftkernel/ftkernel/core"
)

// ceilLog2 is ⌈log2 n⌉ for n ≥ 1.
func ceilLog2(n int) int { return bits.Len(uint(n - 1)) }

// floorLog2 is ⌊log2 n⌋ for n ≥ 1.
func floorLog2(n int) int { return bits.Len(uint(n)) - 1 }

// Targets lists, in send order, the daemons that daemon i sends a Fault to in
// ReliableBroadcast (Algorithm 1, lines 2–4), given the ranks i knows dead
// (Reported_i; only BMGOMPI reads it). cfg must come from Normalize.
//
// BMGPaper is Algorithm 1's loop "for k ← 0 to log2 N do: i sends msg to
// (N + i + 2^k) mod N; i sends msg to (N + i − 2^k) mod N", in that order
// (+1, −1, +2, −2, …).
//
// Ambiguity: the bound "log2 N" is not an integer unless N is a power of
// two, and when it is, an inclusive bound gives 2^k = N ≡ 0, a send to self.
// The BMG the paper cites (ref. [1]) has links i ± 2^k with 2^k < N, so k
// runs over 0 … ⌈log2 N⌉−1. Ambiguity: for some N two terms name the same
// daemon (i + 2^a ≡ i − 2^b mod N: +N/2 ≡ −N/2 for every even N that is a
// power of two, +8 ≡ −4 at N = 12), and the literal loop sends it two
// copies. The prose counts "exactly the number of links in the BMG topology"
// (§4.6 (3)), so each distinct neighbour gets one copy, at its first place in
// the loop. Config.LiteralLoop restores the literal multiset: k = 0 …
// ⌊log2 N⌋ inclusive, duplicates and self-sends kept.
//
// Ambiguity: §4.6 says the messages "part of a binomial spanning tree rooted
// at the emitter are sent first" (+2^k before −2^k), the loop interleaves
// them. In a model where all sends of a step leave together (this package's
// runtimes) the order is unobservable; the loop's order is kept.
//
// BMGOMPI is Open MPI's comm_ft_reliable_bcast.c: distances 2^k ≤ N/2, +
// then −; a daemon known dead (in Reported_i) gets nothing, except at
// distance 1, where it is replaced by the next daemon in that direction not
// known dead (never i itself). Duplicates are kept, as there.
func (c *Config) Targets(i core.Rank, known core.RankSet) []core.Rank {
	if c.N < 2 {
		return nil
	}
	dirs := c.bmgDirections()
	var out []core.Rank
	add := func(t core.Rank, dedup bool) {
		if dedup {
			for _, u := range out {
				if u == t {
					return
				}
			}
		}
		out = append(out, t)
	}
	at := func(dist int, dir int) core.Rank {
		return core.Rank(((int(i)+dir*dist)%c.N + c.N) % c.N)
	}
	switch {
	case c.BMG == BMGOMPI:
		for dist := 1; dist <= c.N/2; dist *= 2 {
			for _, dir := range dirs {
				t := at(dist, dir)
				for t != i && known.Has(t) && dist == 1 {
					t = core.Rank(((int(t)+dir)%c.N + c.N) % c.N)
				}
				if t != i && !known.Has(t) {
					add(t, false)
				}
			}
		}
	case c.LiteralLoop:
		for k := 0; k <= floorLog2(c.N); k++ {
			for _, dir := range dirs {
				add(at(1<<k, dir), false)
			}
		}
	default:
		for k := 0; k < ceilLog2(c.N); k++ {
			for _, dir := range dirs {
				if t := at(1<<k, dir); t != i {
					add(t, true)
				}
			}
		}
	}
	return out
}
