package ringfd

import (
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// The mutants: deliberately broken variants, each a minimal change to one
// rule, reachable only from tests and ftcheck --mutant. The rules call the
// hooks below; with Config.Mutant empty every hook is the paper's rule.
const (
	// MutantNoMending: an observer that detects its predecessor dead does
	// not adopt a new one (§4.5 ¶3 skipped): the ring stays cut, so a second
	// failure upstream is never detected (completeness, ring repair).
	MutantNoMending = mutant.Name("no-mending")
	// MutantObserveSuccessor: daemon d expects heartbeats from d+1 instead
	// of d−1 (§4.5 ¶2), while heartbeats still flow d → d+1 (accuracy).
	MutantObserveSuccessor = mutant.Name("observe-successor")
	// MutantMendShortTimeout: mending never skips reported daemons and
	// gives the new predecessor one tick, less than the request's round
	// trip, before suspecting it (accuracy).
	MutantMendShortTimeout = mutant.Name("mend-without-skip-short-timeout")
	// MutantForwardAlways: Forwarding drops its guard "msg ⊄ Reported_j"
	// (Algorithm 1, FORWARDING line 2): every copy is forwarded again, a
	// message storm (forward at most once, termination).
	MutantForwardAlways = mutant.Name("forward-always")
	// MutantForwardNever: a daemon records a Fault but never forwards it
	// (FORWARDING line 4 skipped): only the initiator's BMG neighbours learn
	// (completeness, agreement).
	MutantForwardNever = mutant.Name("forward-never")
	// MutantBMGPositiveOnly: ReliableBroadcast sends only to i + 2^k, not to
	// i − 2^k (Algorithm 1 line 4 skipped): half the links, fewer disjoint
	// paths (one message per BMG link, completeness under failures).
	MutantBMGPositiveOnly = mutant.Name("bmg-positive-only")
	// MutantHostedNotReported: StartPropagation of a daemon does not add
	// Hosted{Eid} (Algorithm 1, StartPropagation lines 4–6 skipped): the
	// processes of a dead node are never reported (completeness).
	MutantHostedNotReported = mutant.Name("hosted-not-reported")
)

// Mutants lists every mutant of this package.
var Mutants = []mutant.Name{
	MutantNoMending,
	MutantObserveSuccessor,
	MutantMendShortTimeout,
	MutantForwardAlways,
	MutantForwardNever,
	MutantBMGPositiveOnly,
	MutantHostedNotReported,
}

// initialPred is the daemon d observes at start: d − 1 in ring order
// (MutantObserveSuccessor: d + 1).
func (c *Config) initialPred(d core.Rank) core.Rank {
	if c.Mutant == MutantObserveSuccessor {
		return c.RingSucc(d)
	}
	return c.RingPred(d)
}

// mends reports whether an observer adopts a new predecessor after a
// detection (MutantNoMending: never).
func (c *Config) mends() bool { return c.Mutant != MutantNoMending }

// skips reports whether mending skips daemons in Reported_o
// (MutantMendShortTimeout: never, whatever NoSkip says).
func (c *Config) skips() bool { return !c.NoSkip && c.Mutant != MutantMendShortTimeout }

// mendTimeout is the delay, in ticks, within which a newly requested
// predecessor must be heard from under TimerReset: η
// (MutantMendShortTimeout: 1 tick).
func (c *Config) mendTimeout() uint64 {
	if c.Mutant == MutantMendShortTimeout {
		return 1
	}
	return c.Timeout
}

// forwardGuard is FORWARDING line 2, "msg ⊄ Reported_j"
// (MutantForwardAlways: always true).
func (c *Config) forwardGuard(m, reported core.RankSet) bool {
	return c.Mutant == MutantForwardAlways || !m.SubsetOf(reported)
}

// forwards reports whether a daemon forwards a message with new information
// (MutantForwardNever: never).
func (c *Config) forwards() bool { return c.Mutant != MutantForwardNever }

// bmgDirections are the signs of the BMG links: + then −
// (MutantBMGPositiveOnly: + only).
func (c *Config) bmgDirections() []int {
	if c.Mutant == MutantBMGPositiveOnly {
		return []int{+1}
	}
	return []int{+1, -1}
}

// reportedWith is the set StartPropagation reports for a failed daemon:
// {Eid} ∪ Hosted{Eid} (MutantHostedNotReported: {Eid}).
func (c *Config) reportedWith(eid core.Rank) core.RankSet {
	var m core.RankSet
	if c.IsDaemon(eid) && c.Mutant != MutantHostedNotReported {
		m = c.Hosted(eid)
	}
	m.Add(eid)
	return m
}
