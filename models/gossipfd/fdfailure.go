package gossipfd

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// The FD-failure analysis of §5.2 (Fig. 12): "each node may fail with a
// probability f. Then, we verify if the graph representing the BRR or DBRR
// routing is connected: simultaneous nodes failures may cut all edges from
// source nodes to a destination node. This situation implies a FD failure."
//
// The gossip graph has an edge s → d when d = Dest(s, r) for some round r
// of the cycle. Two readings of "FD failure" (the paper's §5.2, Fig. 12):
//
//   - A, cut (p_cut): some live host has all its gossip sources
//     (in-neighbours) failed. It matches "cut all edges from source nodes to
//     a destination node".
//   - B, disconnected (p_disconnected): the graph induced on the live hosts
//     is not strongly connected. It matches "verify if the graph … is
//     connected".
//
// Runs with at most one live host are not FD failures (there is nobody to
// detect or to be detected). With two or more live hosts A implies B.

// WeibullF is Eq. (1): the probability that a host fails within t, f = 1 −
// e^{−(λt)^δ}; lambdaT is the product λt. The paper's Fig. 12 uses δ = 1,
// λt = 0.1 (f ≈ 0.0951626).
func WeibullF(lambdaT, delta float64) float64 { return 1 - math.Exp(-math.Pow(lambdaT, delta)) }

// Graph is the gossip graph of a deterministic variant over n hosts. It
// keeps scratch space: one goroutine at a time.
type Graph struct {
	N        int
	In, Out  [][]core.Rank // in- and out-neighbours of each host, ascending, without the host
	inWords  [][]uint64
	outWords [][]uint64
	// offsets are the distinct ring distances of the edges: the graph is
	// circulant (s → s + o for every o), which classify uses to move whole
	// bit sets at once.
	offsets []int
	mask    []uint64 // the n valid bits
	tmp     []uint64
}

// NewGraph builds the gossip graph of RR, BRR or DBRR over n ≥ 2 hosts.
func NewGraph(v fd.Variant, n int) (*Graph, error) {
	if v == fd.Random {
		return nil, fmt.Errorf("gossipfd: the random variant has no fixed gossip graph")
	}
	if n < 2 || n > fd.MaxN {
		return nil, fmt.Errorf("gossipfd: n = %d, want 2 ≤ n ≤ %d", n, fd.MaxN)
	}
	w := (n + 63) / 64
	g := &Graph{N: n, In: make([][]core.Rank, n), Out: make([][]core.Rank, n),
		inWords: make([][]uint64, n), outWords: make([][]uint64, n)}
	for s := range n {
		g.inWords[s] = make([]uint64, w)
		g.outWords[s] = make([]uint64, w)
	}
	seenOff := map[int]bool{}
	for r := 1; r <= fd.Cycle(v, n); r++ {
		if o := fd.Offset(v, n, r) % n; o != 0 && !seenOff[o] {
			seenOff[o] = true
			g.offsets = append(g.offsets, o)
		}
		for s := range n {
			d := int(fd.Dest(v, n, core.Rank(s), r))
			if d == s {
				continue
			}
			g.outWords[s][d/64] |= 1 << (d % 64)
			g.inWords[d][s/64] |= 1 << (s % 64)
		}
	}
	list := func(ws []uint64) []core.Rank {
		var out []core.Rank
		for i, x := range ws {
			for x != 0 {
				b := bits.TrailingZeros64(x)
				out = append(out, core.Rank(i*64+b))
				x &= x - 1
			}
		}
		return out
	}
	g.mask = make([]uint64, w)
	for i := range n {
		g.mask[i/64] |= 1 << (i % 64)
	}
	g.tmp = make([]uint64, w)
	for s := range n {
		g.In[s] = list(g.inWords[s])
		g.Out[s] = list(g.outWords[s])
	}
	return g, nil
}

// classify returns readings A and B for the set of live hosts (bit set,
// len ⌈n/64⌉ words), using scratch space of the same size. The graph being
// circulant, the hosts with a live in-neighbour are ∪_o rot(live, o), and a
// breadth-first search moves its whole frontier by each offset at once.
func (g *Graph) classify(live []uint64, reach, frontier, next []uint64) (cut, disconnected bool) {
	first, count := -1, 0
	for i, x := range live {
		count += bits.OnesCount64(x)
		if first < 0 && x != 0 {
			first = i*64 + bits.TrailingZeros64(x)
		}
	}
	if count < 2 {
		return false, false
	}
	clear(next)
	for _, o := range g.offsets {
		g.rotOr(next, live, o)
	}
	for i := range live {
		if live[i]&^next[i] != 0 {
			return true, true
		}
	}
	for _, sign := range []int{1, -1} {
		clear(reach)
		reach[first/64] |= 1 << (first % 64)
		copy(frontier, reach)
		for {
			clear(next)
			for _, o := range g.offsets {
				g.rotOr(next, frontier, ((sign*o)%g.N+g.N)%g.N)
			}
			any := false
			for i := range next {
				next[i] &= live[i] &^ reach[i]
				reach[i] |= next[i]
				any = any || next[i] != 0
			}
			if !any {
				break
			}
			frontier, next = next, frontier
		}
		for i := range live {
			if reach[i] != live[i] {
				return false, true
			}
		}
	}
	return false, false
}

// rotOr sets dst |= x rotated by o (0 ≤ o < n) on the ring of n bits:
// bit i of x goes to bit (i + o) mod n.
func (g *Graph) rotOr(dst, x []uint64, o int) {
	shlOr(dst, x, o)
	shrInto(g.tmp, x, g.N-o)
	for i := range dst {
		dst[i] = (dst[i] | g.tmp[i]) & g.mask[i]
	}
}

// shlOr sets dst |= x << k (bits shifted past the last word are dropped).
func shlOr(dst, x []uint64, k int) {
	ws, bs := k/64, uint(k%64)
	for i := len(dst) - 1; i >= ws; i-- {
		v := x[i-ws] << bs
		if bs > 0 && i-ws-1 >= 0 {
			v |= x[i-ws-1] >> (64 - bs)
		}
		dst[i] |= v
	}
}

// shrInto sets dst = x >> k.
func shrInto(dst, x []uint64, k int) {
	ws, bs := k/64, uint(k%64)
	for i := range dst {
		var v uint64
		if i+ws < len(x) {
			v = x[i+ws] >> bs
			if bs > 0 && i+ws+1 < len(x) {
				v |= x[i+ws+1] << (64 - bs)
			}
		}
		dst[i] = v
	}
}

// FDFailureResult is the answer of `ftcheck simulate gossipfd --variant V
// --n N --fd-failure --f F --exact|--trials T --seed S --json`.
type FDFailureResult struct {
	Variant string  `json:"variant"`
	N       int     `json:"n"`
	F       float64 `json:"f"`
	Method  string  `json:"method"` // "exact" or "monte-carlo"
	// PCut (reading A) and PDisconnected (reading B): the probability, over
	// independent host failures with probability F, of an FD failure.
	PCut          float64 `json:"p_cut"`
	PDisconnected float64 `json:"p_disconnected"`
	// Monte Carlo only: trials, seed, event counts, and 95 % Wilson score
	// intervals [lo, hi].
	Trials             int64       `json:"trials,omitempty"`
	Seed               uint64      `json:"seed,omitempty"`
	CutEvents          int64       `json:"cut_events,omitempty"`
	DisconnectedEvents int64       `json:"disconnected_events,omitempty"`
	PCutCI95           *[2]float64 `json:"p_cut_ci95,omitempty"`
	PDisconnectedCI95  *[2]float64 `json:"p_disconnected_ci95,omitempty"`
	// Exact only: the fewest failed hosts that make each reading true (0:
	// none for any crash set).
	MinFailedCut          int `json:"min_failed_cut,omitempty"`
	MinFailedDisconnected int `json:"min_failed_disconnected,omitempty"`
	// Both: the Bonferroni bracket of reading A (S1 − S2 − P(≤1 live) ≤
	// p_cut ≤ S1), the smallest in-degree, and P_app(n) = 1 − (1 − f)^n, the
	// failure probability of an unreplicated application on n hosts (§4.5),
	// which requirement d) of §5.2 wants far above the FD's.
	PCutBounds [2]float64 `json:"p_cut_bonferroni"`
	MinInDeg   int        `json:"min_in_degree"`
	PApp       float64    `json:"p_app"`
}

// MaxExactN is the largest n FDFailureExact enumerates (2^n crash sets).
const MaxExactN = 24

// FDFailureExact enumerates every crash set of n ≤ MaxExactN hosts: the
// count of crash sets of each size k for which each reading holds, weighted
// by f^k (1−f)^(n−k).
func FDFailureExact(v fd.Variant, n int, f float64) (FDFailureResult, error) {
	res, g, err := fdBase(v, n, f)
	if err != nil {
		return res, err
	}
	if n > MaxExactN {
		return res, fmt.Errorf("gossipfd: exact enumeration of 2^%d crash sets; use --trials (n ≤ %d)", n, MaxExactN)
	}
	res.Method = "exact"
	cutK := make([]int64, n+1)
	discK := make([]int64, n+1)
	live, reach, frontier, next := make([]uint64, 1), make([]uint64, 1), make([]uint64, 1), make([]uint64, 1)
	full := uint64(1)<<n - 1
	for failed := uint64(0); failed <= full; failed++ {
		live[0] = full &^ failed
		cut, disc := g.classify(live, reach, frontier, next)
		k := bits.OnesCount64(failed)
		if cut {
			cutK[k]++
		}
		if disc {
			discK[k]++
		}
	}
	for k := n; k >= 0; k-- {
		w := math.Pow(f, float64(k)) * math.Pow(1-f, float64(n-k))
		res.PCut += float64(cutK[k]) * w
		res.PDisconnected += float64(discK[k]) * w
		if cutK[k] > 0 {
			res.MinFailedCut = k
		}
		if discK[k] > 0 {
			res.MinFailedDisconnected = k
		}
	}
	return res, nil
}

// FDFailureMonteCarlo draws trials crash sets (each host fails with
// probability f, from a PCG generator seeded with seed) and counts each
// reading, with 95 % Wilson score intervals.
func FDFailureMonteCarlo(v fd.Variant, n int, f float64, trials int64, seed uint64) (FDFailureResult, error) {
	res, g, err := fdBase(v, n, f)
	if err != nil {
		return res, err
	}
	if trials < 1 {
		return res, fmt.Errorf("gossipfd: %d trials, want ≥ 1", trials)
	}
	res.Method, res.Trials, res.Seed = "monte-carlo", trials, seed
	rng := rand.New(rand.NewPCG(seed, 0xda942042e4dd58b5))
	w := (n + 63) / 64
	live, reach, frontier, next := make([]uint64, w), make([]uint64, w), make([]uint64, w), make([]uint64, w)
	lnq := math.Log1p(-f)
	for range trials {
		sampleLive(live, n, f, lnq, rng)
		cut, disc := g.classify(live, reach, frontier, next)
		if cut {
			res.CutEvents++
		}
		if disc {
			res.DisconnectedEvents++
		}
	}
	res.PCut = float64(res.CutEvents) / float64(trials)
	res.PDisconnected = float64(res.DisconnectedEvents) / float64(trials)
	a, b := Wilson(res.CutEvents, trials, Z95)
	res.PCutCI95 = &[2]float64{a, b}
	a, b = Wilson(res.DisconnectedEvents, trials, Z95)
	res.PDisconnectedCI95 = &[2]float64{a, b}
	return res, nil
}

// sampleLive sets live to a random live set: each of n hosts fails
// independently with probability f. It draws the gaps between failed hosts
// (geometric, by inversion: ⌊ln U / ln(1−f)⌋), about f·n draws per trial
// instead of n.
func sampleLive(live []uint64, n int, f, lnq float64, rng *rand.Rand) {
	for i := range live {
		live[i] = ^uint64(0)
	}
	if n%64 != 0 {
		live[len(live)-1] = 1<<(n%64) - 1
	}
	switch {
	case f <= 0:
		return
	case f >= 1:
		clear(live)
		return
	}
	for s := -1; ; {
		gap := math.Floor(math.Log(1-rng.Float64()) / lnq)
		if gap >= float64(n-s) {
			return
		}
		s += int(gap) + 1
		if s >= n {
			return
		}
		live[s/64] &^= 1 << (s % 64)
	}
}

// fdBase validates and fills the fields common to both methods.
func fdBase(v fd.Variant, n int, f float64) (FDFailureResult, *Graph, error) {
	res := FDFailureResult{Variant: v.String(), N: n, F: f}
	if !(f >= 0 && f <= 1) {
		return res, nil, fmt.Errorf("gossipfd: f = %v, want 0 ≤ f ≤ 1", f)
	}
	g, err := NewGraph(v, n)
	if err != nil {
		return res, nil, err
	}
	res.PCutBounds = g.CutBonferroni(f)
	res.MinInDeg = n
	for _, in := range g.In {
		res.MinInDeg = min(res.MinInDeg, len(in))
	}
	res.PApp = 1 - math.Pow(1-f, float64(n))
	return res, g, nil
}

// CutBonferroni brackets reading A: with E_d the event "d live and every
// in-neighbour of d failed", S1 = Σ P(E_d) = Σ (1−f) f^|in(d)| and S2 =
// Σ_{d<d'} P(E_d ∧ E_d') (zero when one is the other's in-neighbour, else
// (1−f)² f^|in(d) ∪ in(d')|). Reading A is ∪ E_d minus the runs with at most
// one live host, so S1 − S2 − P(≤1 live) ≤ p_cut ≤ S1.
func (g *Graph) CutBonferroni(f float64) [2]float64 {
	n := g.N
	var s1, s2 float64
	for d := range n {
		s1 += (1 - f) * math.Pow(f, float64(len(g.In[d])))
	}
	for d := range n {
		for e := d + 1; e < n; e++ {
			if has(g.inWords[e], d) || has(g.inWords[d], e) {
				continue
			}
			u := 0
			for i := range g.inWords[d] {
				u += bits.OnesCount64(g.inWords[d][i] | g.inWords[e][i])
			}
			s2 += (1 - f) * (1 - f) * math.Pow(f, float64(u))
		}
	}
	few := math.Pow(f, float64(n)) + float64(n)*(1-f)*math.Pow(f, float64(n-1))
	return [2]float64{max(0, s1-s2-few), s1}
}

func has(ws []uint64, x int) bool { return ws[x/64]&(1<<(x%64)) != 0 }

// Z95 is the two-sided 95 % normal quantile.
const Z95 = 1.959963984540054

// Wilson is the Wilson score interval for x successes in t trials at
// normal quantile z: (p̂ + z²/2t ± z √(p̂(1−p̂)/t + z²/4t²)) / (1 + z²/t). It
// stays inside [0, 1] and is not empty at x = 0 (upper bound ≈ z²/t).
func Wilson(x, t int64, z float64) (lo, hi float64) {
	if t <= 0 {
		return 0, 1
	}
	T := float64(t)
	p := float64(x) / T
	den := 1 + z*z/T
	c := (p + z*z/(2*T)) / den
	h := z / den * math.Sqrt(p*(1-p)/T+z*z/(4*T*T))
	lo, hi = max(0, c-h), min(1, c+h)
	if x == 0 {
		lo = 0 // exactly, not a rounding residue
	}
	if x == t {
		hi = 1
	}
	return lo, hi
}
