package gossipfd

import (
	"flag"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// The tight bounds of `ftcheck check gossipfd` (P2P-MPI §5.1, Eqs. 3–5;
// §5.2 c: "a fault is detected in a guaranteed delay"). A host x that
// crashes before round c sent its last heartbeat, c − 1, in round c − 1 to
// its destination, and never forwards anything again. That heartbeat
// reaches the other hosts over the routing of the variant; host h records
// its arrival as lastInc[x] (the round of the last increase), suspects x
// in the first round g with g − lastInc[x] > T_cleanup (§5.1) and, x being
// dead, declares it in the same round (the ping of §5.3 gets no PONG).

// refDest is the destination of host s in its round g ≥ 1 by the paper's
// equations (fd.Dest: Eqs. 3–5, never a mutant's hooks) with s's round
// offset, or by the Random plan; fixed routing.
func refDest(c *fd.Config, s core.Rank, g uint64) core.Rank {
	if c.Variant == fd.Random {
		return c.Plan.Partner(s, g)
	}
	off := 0
	if c.Offsets != nil {
		off = c.Offsets[s]
	}
	cyc := uint64(fd.Cycle(c.Variant, c.N))
	return fd.Dest(c.Variant, c.N, s, int((g-1+uint64(off))%cyc)+1)
}

// deadSourceSpread is the number of rounds, counting round g0, until every
// host other than src holds the heartbeat src generated in round g0, when
// src sends it in round g0 (to its destination) and then never sends
// again: the last heartbeat of a host that crashes before round g0 + 1.
// -1 if it has not after limit rounds.
func deadSourceSpread(c *fd.Config, src core.Rank, g0 uint64, limit int) int {
	n := c.N
	informed := make([]bool, n)
	informed[src] = true
	count := 0 // informed hosts other than src
	var next []core.Rank
	for k := 1; k <= limit; k++ {
		g := g0 + uint64(k) - 1
		next = next[:0]
		for s := range core.Rank(n) {
			if informed[s] && (s != src || k == 1) {
				if d := refDest(c, s, g); !informed[d] {
					next = append(next, d)
				}
			}
		}
		for _, d := range next {
			if !informed[d] {
				informed[d] = true
				count++
			}
		}
		if count == n-1 {
			return k
		}
	}
	return -1
}

// DetectSpread is the dissemination time of a crashed host's last
// heartbeat, in rounds: the best and worst, over every source host and
// every round of the cycle in which it can send its last heartbeat (the
// phase, 1 … cycle; Random: every round of the plan), of deadSourceSpread.
// It is the paper's T_cleanup^min (§5.1, §5.2: "the time required for
// information to reach all other hosts") for a source that stops
// forwarding after its last send; fixed routing, every host's offset
// (Config.Offsets) applied. Error: a heartbeat that never reaches every
// host (a routing that is not connected without its source).
func DetectSpread(c *fd.Config) (best, worst, bestPhase, worstPhase int, err error) {
	period := fd.Cycle(c.Variant, c.N)
	if c.Variant == fd.Random {
		period = c.Plan.Rounds()
	}
	best = -1
	limit := 64 * c.N
	for s := range core.Rank(c.N) {
		for p := 1; p <= period; p++ {
			k := deadSourceSpread(c, s, uint64(p), limit)
			if k < 0 {
				return 0, 0, 0, 0, fmt.Errorf("gossipfd: %v n=%d: the last heartbeat of host %v, sent in round %d, reaches not every host in %d rounds", c.Variant, c.N, s, p, limit)
			}
			if best < 0 || k < best {
				best, bestPhase = k, p
			}
			if k > worst {
				worst, worstPhase = k, p
			}
		}
	}
	return best, worst, bestPhase, worstPhase, nil
}

// DetectBound is the default completeness bound of `ftcheck check
// gossipfd`, in rounds: T_cleanup + W, W the worst phase of DetectSpread,
// and the isolation W (CheckConfig.Isolation). A host crashed before
// round c is declared by every live host by the end of round
// c − 1 + W + T_cleanup = c + DetectBound − 1 (CheckConfig): its last
// heartbeat reaches every host by round c − 2 + W, and the cleanup check
// suspects it T_cleanup + 1 rounds after that arrival. The bound holds
// when no other host crashes while that heartbeat spreads (before round
// c − 1 + W): another crash can slow or cut the spread (§5.3: "all sources
// of information for a node fail"), which suspicion-round follows exactly.
func DetectBound(c *fd.Config) (bound, isolation int, err error) {
	_, w, _, _, err := DetectSpread(c)
	if err != nil {
		return 0, 0, err
	}
	return int(c.Cleanup) + w, w, nil
}

// EnvDetectBound is the default completeness bound under bounded delay
// (EnvCompleteness), in the observer's rounds after the crashed host's
// last round, and its isolation (EnvParams.Isolation). Convention: with delays below T_gossip (Δ < TGossip ticks,
// §5.3: "message delays are less than T_gossip") every GOSSIP is
// delivered before the next gossip tick of every host, as in the round
// model, so the round bound DetectBound carries over; in ticks, a host x
// whose last round g_x began at tick g_x·T_gossip is declared by every
// live host before tick (g_x + DetectBound + 1)·T_gossip. With Δ ≥
// T_gossip a hop may slip into the next round, where the routing of
// Eqs. 3–5 has moved on, and the paper gives no bound: the default is
// then T_cleanup + two cycles + 1 rounds.
func EnvDetectBound(c *fd.Config, delta int) (bound, isolation int, err error) {
	if uint64(delta) < c.TGossip {
		return DetectBound(c)
	}
	cyc := fd.Cycle(c.Variant, c.N)
	if c.Variant == fd.Random {
		cyc = c.Plan.Rounds() / 4
	}
	return int(c.Cleanup) + 2*cyc + 1, 0, nil
}

// flagSet reports whether flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// DefaultMaxRounds is the bounded run's length when --max-rounds is not
// given (at least 8): bound + cycle + 1 rounds, so EnvCompleteness checks
// a crash after every round g_x < cycle + 1, one in each phase of the
// cycle; Random: bound + 2 (its plan has no short cycle).
func DefaultMaxRounds(c *fd.Config, bound int) int {
	if c.Variant == fd.Random {
		return bound + 2
	}
	return bound + fd.Cycle(c.Variant, c.N) + 1
}
