package gossipfd

import "github.com/ftkernel/ftkernel/core"

// What a module may still send, on its own initiative, in the steps left to
// it: read by the "may still send to" relations of the checked models
// (checker/env Config.MaySend, partial-order reduction). Both answers are
// over-approximations that never turn from false to true as the module
// steps: rounds only pass, declared only grows, lastInc only grows (merge
// and recvPong set it to the current round g ≥ its old value).
//
// The module's sends (rules.go): gossipRound sends GOSSIP to the
// destination of its round; cleanupCheck, in the same step, sends PING to
// each host it starts suspecting (suspect, with Config.Ping); recvPing
// answers PONG to the pinger. No other rule sends. The PONG is a reply, not
// an initiative: a relation must add it from the pinger's side (a PING in
// flight, or MayPing at the pinger).

// roundsLeft reports whether the module has a gossip round still to run:
// not started, or its gossip timer is armed (g < Config.MaxRounds; with
// MaxRounds 0 for ever).
func (n *Node) roundsLeft() bool {
	return n.cfg.MaxRounds == 0 || n.g < n.cfg.MaxRounds
}

// lastRound is the last round the module runs, or 0 for an unbounded run.
func (n *Node) lastRound() uint64 { return n.cfg.MaxRounds }

// MayGossipTo reports whether a GOSSIP of this module may still go to r:
// r is the destination of one of the rounds g+1 … Config.MaxRounds
// (gossipRound, destinationAt), the rounds of one period of the routing
// when the run is unbounded. Under RouteLive the destination depends on
// the hosts declared by then, so any host not declared yet (the live ring
// only shrinks) may be one. Never the module itself.
func (n *Node) MayGossipTo(r core.Rank) bool {
	c := n.cfg
	if r == n.self || !r.Valid(c.N) || !n.roundsLeft() {
		return false
	}
	if c.Routing == RouteLive {
		return !n.declared.Has(r)
	}
	period := uint64(Cycle(c.Variant, c.N))
	if c.Variant == Random {
		period = uint64(c.Plan.Rounds())
	}
	last := n.g + period
	if m := n.lastRound(); m > 0 && m < last {
		last = m
	}
	for g := n.g + 1; g <= last; g++ {
		if d, ok := n.destinationAt(g); ok && d == r {
			return true
		}
	}
	return false
}

// MayPing reports whether this module may still send PING to r: with
// Config.Ping, a round left, r not declared (cleanupCheck skips declared
// hosts, and a declaration is never withdrawn), and r stale enough to be
// suspected by the last round: cleanupCheck at round g' suspects r when
// stale(g' − lastInc[r]), and g' ≤ MaxRounds, lastInc[r] never decreases,
// and stale is monotone in the elapsed rounds (every mutant's test
// included). A suspicion that is pending now is no obstacle: merge or a
// PONG may withdraw it and a later round suspect r again.
func (n *Node) MayPing(r core.Rank) bool {
	c := n.cfg
	if !c.Ping || r == n.self || !r.Valid(c.N) || !n.roundsLeft() || n.declared.Has(r) {
		return false
	}
	last := n.lastRound()
	if last == 0 {
		return c.Mutant != MutantNeverSuspect
	}
	return stale(last-n.lastInc[r], c.Cleanup, c.Mutant)
}
