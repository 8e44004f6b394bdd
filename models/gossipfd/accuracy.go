package gossipfd

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// RoundTicks is T_gossip in ticks in the round-model analyses; messages
// take one tick, so every message of a round is delivered before the next
// (the paper's "message delays are less than T_gossip", §5.3).
const RoundTicks = 8

// Unbounded stands for "no T_cleanup is enough": a live host stops hearing
// about a live host for ever (its sources are cut off).
const Unbounded = -1

// MinCleanupResult is, for one variant, n and crash count k, the smallest
// T_cleanup (rounds) with no false suspicion in any run of the round model
// where k hosts crash, over every crash set and every crash round within a
// cycle (after a warm-up of two cycles), start-up included.
type MinCleanupResult struct {
	Variant string `json:"variant"`
	N       int    `json:"n"`
	Crashes int    `json:"crashes"`
	// MinCleanup is the largest staleness g − lastInc[x] of a live host x
	// at a live host's cleanup check: x is suspected exactly when it
	// exceeds T_cleanup, so it is the smallest safe T_cleanup; Unbounded
	// (−1) when some crash set cuts a live host off for ever.
	MinCleanup int `json:"min_cleanup_rounds"`
	// Worst is a crash set and its crash rounds that attain MinCleanup.
	WorstCrashSet    []int `json:"worst_crash_set"`
	WorstCrashRounds []int `json:"worst_crash_rounds"`
	Runs             int   `json:"runs"`
	// PaperCleanup is T_cleanup^min + ⌈log2 n⌉ (DBRR's stated setting, and
	// our reading for BRR and RR); PaperCleanupMin the paper's bound.
	PaperCleanup    int `json:"paper_cleanup"`
	PaperCleanupMin int `json:"paper_cleanup_min"`
}

// MinCleanup runs the round model for every crash set of size k (for RR,
// BRR and DBRR only the sets containing host 0: by rotation symmetry every
// other set is a rotation of one of them) and every assignment of crash
// rounds within one cycle, without the ping phase, routing fixed, and with a
// T_cleanup too large to fire, recording the staleness the cleanup check
// compares. Random uses the plan of seed and every crash set.
func MinCleanup(v fd.Variant, n, k int, seed uint64) (MinCleanupResult, error) {
	return minCleanup(v, n, k, seed, v != fd.Random)
}

// minCleanup is MinCleanup, with the rotation symmetry (crash sets
// containing host 0 only) as a switch, so a test can compare the verdicts.
func minCleanup(v fd.Variant, n, k int, seed uint64, symmetry bool) (MinCleanupResult, error) {
	res := MinCleanupResult{Variant: v.String(), N: n, Crashes: k}
	if n < 2 || n > 64 {
		return res, fmt.Errorf("gossipfd: n = %d, want 2 ≤ n ≤ 64 for the exhaustive search", n)
	}
	if k < 0 || k > n-2 {
		return res, fmt.Errorf("gossipfd: %d crashes of %d hosts, want 0 ≤ k ≤ n−2 (two live hosts)", k, n)
	}
	cfg := fd.Config{N: n, Variant: v, TGossip: RoundTicks, Cleanup: 1 << 40}
	cyc := fd.Cycle(v, n)
	if v == fd.Random {
		plan, err := RandomPlan(n, RandomPlanRounds, seed)
		if err != nil {
			return res, err
		}
		cfg.Plan = plan
		cyc = 1
	} else {
		res.PaperCleanup, _ = fd.PaperCleanup(v, n, fd.CleanupMargin)
		res.PaperCleanupMin, _ = fd.PaperCleanupMin(v, n)
	}
	warm := 2 * max(cyc, fd.CeilLog2(n)+1)
	after := 2*n*cyc + cyc + n
	if v == fd.Random {
		after = 2 * RandomPlanRounds
	}
	cut := after / 2 // no increase for this long after the last crash: never
	res.MinCleanup = 0
	var sets [][]int
	choose(n, k, symmetry, func(s []int) { sets = append(sets, append([]int(nil), s...)) })
	rounds := make([]int, k)
	for _, set := range sets {
		for {
			crash := map[core.Rank]uint64{}
			last := 0
			for i, x := range set {
				crash[core.Rank(x)] = uint64(warm+rounds[i]) * RoundTicks
				last = max(last, warm+rounds[i])
			}
			total := last + after
			worst := 0
			sc := SimConfig{Node: cfg, DelayMin: 1, DelayMax: 1, Crash: crash, Rounds: total}
			sc.Observe = func(tick uint64, node *fd.Node) {
				for x := range core.Rank(n) {
					if x != node.Self() && sc.Live(x, tick) {
						worst = max(worst, int(node.Staleness(x)))
					}
				}
			}
			r, err := Simulate(sc)
			if err != nil {
				return res, err
			}
			res.Runs++
			for s, node := range r.Nodes {
				if !sc.Live(core.Rank(s), uint64(total)*RoundTicks) {
					continue
				}
				for x := range core.Rank(n) {
					if x != node.Self() && sc.Live(x, uint64(total)*RoundTicks) && int(node.Staleness(x)) > cut {
						worst = Unbounded
					}
				}
			}
			better := res.WorstCrashSet == nil ||
				res.MinCleanup != Unbounded && (worst == Unbounded || worst > res.MinCleanup)
			if better {
				res.MinCleanup = worst
				res.WorstCrashSet = append([]int{}, set...)
				res.WorstCrashRounds = append([]int{}, rounds...)
			}
			if !nextRounds(rounds, cyc) {
				break
			}
		}
	}
	return res, nil
}

// choose calls f with every k-subset of 0…n−1 in lexicographic order
// (only those containing 0 if withZero; k = 0 gives the empty set once).
func choose(n, k int, withZero bool, f func([]int)) {
	s := make([]int, 0, k)
	var rec func(from int)
	rec = func(from int) {
		if len(s) == k {
			f(s)
			return
		}
		for x := from; x < n; x++ {
			if withZero && len(s) == 0 && x != 0 {
				return
			}
			s = append(s, x)
			rec(x + 1)
			s = s[:len(s)-1]
		}
	}
	rec(0)
}

// nextRounds advances an odometer of crash rounds in [0, cyc); false after
// the last.
func nextRounds(r []int, cyc int) bool {
	for i := range r {
		r[i]++
		if r[i] < cyc {
			return true
		}
		r[i] = 0
	}
	return false
}
