package gossipfd

import (
	"fmt"

	"github.com/ftkernel/ftkernel/internal/mutant"
)

// PongPolicy is what a successful ping does (§5.3 says only that the ping
// checks "that a suspected host has really failed").
type PongPolicy uint8

const (
	// PongRefresh withdraws the suspicion and restarts the host's timeout:
	// lastInc[x] ← g, and hb[x] takes the heartbeat the PONG carries if it is
	// larger. The default.
	PongRefresh PongPolicy = iota
	// PongWithdrawOnly only withdraws the suspicion; the cleanup check
	// suspects (and pings) the host again at every round while its heartbeat
	// does not grow.
	PongWithdrawOnly
)

// Routing says whether a declared host leaves the routing (the paper is
// silent; Eqs. 3–5 always use the initial n).
type Routing uint8

const (
	// RouteFixed keeps Eqs. 3–5 over all n hosts: gossip to a declared
	// (dead) host is lost. The literal reading, and what the FD-failure
	// analysis of §5.2 assumes. The default.
	RouteFixed Routing = iota
	// RouteLive applies the equations to the ring of the hosts this node
	// has not declared, in ascending order (n replaced by their number).
	RouteLive
)

// Timer ids.
const (
	// TimerGossip is the gossip timer, armed with Delay = Config.TGossip.
	TimerGossip uint64 = 0
	// TimerPingBase + x is the ping timer of host x, armed with Delay =
	// Config.PingTimeout.
	TimerPingBase uint64 = 1
)

// MaxN bounds the number of hosts (the decoders allocate tables of n).
const MaxN = 1 << 16

// Config is shared by every node of one detector. It must not change once a
// node is built (nodes share it).
type Config struct {
	// N is the number of hosts, 2 ≤ N ≤ MaxN.
	N int
	// Variant is the destination function.
	Variant Variant
	// TGossip is T_gossip in ticks (≥ 1): the Delay of the gossip timer.
	TGossip uint64
	// Cleanup is T_cleanup in rounds of T_gossip (≥ 1): x is suspected when
	// g − lastInc[x] > Cleanup.
	Cleanup uint64
	// Ping enables the consensus phase of §5.3. Without it a suspicion is a
	// declaration.
	Ping bool
	// PingTimeout is the ping timer's Delay in ticks, 1 ≤ PingTimeout <
	// TGossip, so a ping is settled before the next round (it must exceed
	// the round trip of a PING and its PONG for a live host to answer).
	PingTimeout uint64
	// OnPong is what a successful ping does.
	OnPong PongPolicy
	// Routing says whether declared hosts leave the routing.
	Routing Routing
	// Offsets, if not nil, gives each host its round-index offset (the
	// out-of-phase start, len N, each below the cycle length): host s in
	// round g uses r = ((g − 1 + Offsets[s]) mod cycle) + 1. Nil is the
	// synchronized start, every offset 0.
	Offsets []int
	// Plan gives Random's partners; required for Random, unused otherwise.
	Plan *Plan
	// MaxRounds, if positive, ends the run after that many gossip rounds:
	// the gossip timer is no longer re-armed (ping timers still fire), so a
	// model checker's state space is finite. Zero runs for ever.
	MaxRounds uint64
	// Mutant selects a broken variant (tests and ftcheck --mutant only).
	Mutant mutant.Name
}

// Validate reports the first bad parameter.
func (c *Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("gossipfd: "+format, args...)
	}
	switch {
	case c.N < 2 || c.N > MaxN:
		return bad("N = %d, want 2 ≤ N ≤ %d", c.N, MaxN)
	case c.Variant > DBRR:
		return bad("unknown variant %d", c.Variant)
	case c.TGossip < 1:
		return bad("TGossip = 0 ticks, want ≥ 1")
	case c.Cleanup < 1:
		return bad("Cleanup = 0 rounds, want ≥ 1")
	case c.Ping && (c.PingTimeout < 1 || c.PingTimeout >= c.TGossip):
		return bad("PingTimeout = %d ticks, want 1 ≤ PingTimeout < TGossip = %d", c.PingTimeout, c.TGossip)
	case c.OnPong > PongWithdrawOnly:
		return bad("unknown pong policy %d", c.OnPong)
	case c.Routing > RouteLive:
		return bad("unknown routing %d", c.Routing)
	case c.Variant == Random && c.Plan == nil:
		return bad("the random variant needs a Plan")
	case c.Variant == Random && c.Plan.N() != c.N:
		return bad("plan for %d hosts, config for %d", c.Plan.N(), c.N)
	}
	if c.Offsets != nil {
		if len(c.Offsets) != c.N {
			return bad("%d offsets for %d hosts", len(c.Offsets), c.N)
		}
		cyc := Cycle(c.Variant, c.N)
		for s, o := range c.Offsets {
			if o < 0 || o >= cyc {
				return bad("offset %d of host %d, want 0 ≤ offset < cycle %d", o, s, cyc)
			}
		}
	}
	switch c.Mutant {
	case mutant.None, MutantBRROffset2r, MutantDBRRSameDirection, MutantMergeLastReceived,
		MutantCleanupGE, MutantPingNeverAnswers, MutantNeverSuspect, MutantRROffsetRPlus1, MutantCleanupLate, MutantMergeSenderRound,
		MutantForgetDropsRound, MutantForgetKeepsHost0:
	default:
		return bad("unknown mutant %q", c.Mutant)
	}
	return nil
}

// RotationInvariant reports whether renaming every host s to s+c mod N maps
// runs to runs: true for RR, BRR and DBRR with a common round offset (the
// Random plan and distinct offsets name hosts).
func (c *Config) RotationInvariant() bool {
	if c.Variant == Random {
		return false
	}
	for _, o := range c.Offsets {
		if o != c.Offsets[0] {
			return false
		}
	}
	return true
}

func (c *Config) offsetOf(s int) int {
	if c.Offsets == nil {
		return 0
	}
	return c.Offsets[s]
}
