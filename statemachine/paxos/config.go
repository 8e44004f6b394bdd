package paxos

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Limits on a Config and on what a decoder may allocate.
const (
	// MaxN is the largest number of processes.
	MaxN = 1 << 12
	// MaxData is the longest command, in bytes.
	MaxData = 1 << 16
	// MaxBatch is the most decisions one DECIDED message carries.
	MaxBatch = 64
	// DefaultRetransmit is Config.Retransmit when it is 0: under bounded
	// delay Δ = 1 (checker/env), a reply to a message sent at tick t
	// arrives by t+2, so a timer of 3 ticks fires only after a loss.
	DefaultRetransmit = 3
)

// TimerRetransmit is the one timer a node arms (core.EffSetTimer): the
// retransmission timeout of every role.
const TimerRetransmit = 1

// Config describes one Paxos group: who holds which role. It is shared by
// all the nodes of the group and never changed.
type Config struct {
	// N is the number of processes, ranks 0 … N-1.
	N int
	// Proposers, Acceptors and Learners list the ranks holding each role,
	// strictly ascending; a rank may be in several lists (§2.1.2: "Um
	// único processo pode assumir qualquer uma dessas funções e múltiplas
	// funções simultaneamente"). Proposers[0] is the initial coordinator;
	// the order of Proposers is the order of succession.
	Proposers, Acceptors, Learners []core.Rank
	// Retransmit is the delay of TimerRetransmit, in the runtime's time
	// unit (0: DefaultRetransmit). Under bounded delay Δ, 2Δ+1 makes every
	// retransmission follow a loss.
	Retransmit uint64
	// Mutant selects a deliberately broken variant (tests only); see
	// Mutants.
	Mutant mutant.Name
}

// withDefaults fills the zero fields and validates the rest.
func (c Config) withDefaults() (Config, error) {
	if c.N < 1 || c.N > MaxN {
		return c, fmt.Errorf("paxos: N=%d out of range 1..%d", c.N, MaxN)
	}
	for _, r := range []struct {
		name  string
		ranks []core.Rank
	}{{"proposers", c.Proposers}, {"acceptors", c.Acceptors}, {"learners", c.Learners}} {
		if len(r.ranks) == 0 {
			return c, fmt.Errorf("paxos: no %s", r.name)
		}
		for i, p := range r.ranks {
			if !p.Valid(c.N) {
				return c, fmt.Errorf("paxos: %s: rank %v out of range for N=%d", r.name, p, c.N)
			}
			if i > 0 && p <= r.ranks[i-1] {
				return c, fmt.Errorf("paxos: %s not strictly ascending: %v", r.name, r.ranks)
			}
		}
	}
	if c.Retransmit == 0 {
		c.Retransmit = DefaultRetransmit
	}
	if c.Mutant != mutant.None && !slices.Contains(Mutants, c.Mutant) {
		return c, fmt.Errorf("paxos: unknown mutant %q", c.Mutant)
	}
	c.Proposers = slices.Clone(c.Proposers)
	c.Acceptors = slices.Clone(c.Acceptors)
	c.Learners = slices.Clone(c.Learners)
	return c, nil
}

// Quorum is a majority of the acceptors, f+1 of 2f+1 (§2.1.2: "para
// tolerar f falhas ele requer 2f + 1 acceptors — isto é, para assegurar o
// progresso, um quórum de f + 1 acceptors devem estar sem-falha").
func (c Config) Quorum() int { return len(c.Acceptors)/2 + 1 }

// Classic is the configuration of the Classic Paxos event logger (§5.1.3,
// Fig. 5.2) and the simplest Paxos group: n processes, every one a
// proposer, an acceptor and a learner; p0 coordinates first.
func Classic(n int) Config {
	all := make([]core.Rank, n)
	for i := range all {
		all[i] = core.Rank(i)
	}
	return Config{N: n, Proposers: all, Acceptors: all, Learners: all}
}

// roles is the role set of one rank.
type roles struct {
	proposer, acceptor, learner bool
	pi, li                      int // index in Proposers, Learners (-1: none)
}

func (c *Config) rolesOf(p core.Rank) roles {
	pi, _ := slices.BinarySearch(c.Proposers, p)
	ai, _ := slices.BinarySearch(c.Acceptors, p)
	li, _ := slices.BinarySearch(c.Learners, p)
	r := roles{pi: -1, li: -1}
	if pi < len(c.Proposers) && c.Proposers[pi] == p {
		r.proposer, r.pi = true, pi
	}
	r.acceptor = ai < len(c.Acceptors) && c.Acceptors[ai] == p
	if li < len(c.Learners) && c.Learners[li] == p {
		r.learner, r.li = true, li
	}
	return r
}

func (c *Config) isProposer(p core.Rank) bool {
	_, ok := slices.BinarySearch(c.Proposers, p)
	return ok
}
func (c *Config) isAcceptor(p core.Rank) bool {
	_, ok := slices.BinarySearch(c.Acceptors, p)
	return ok
}
func (c *Config) isLearner(p core.Rank) bool { _, ok := slices.BinarySearch(c.Learners, p); return ok }

// Owner is the proposer whose ballot b is (b ≥ 1).
func (c *Config) Owner(b Ballot) core.Rank {
	return c.Proposers[int((uint64(b)-1)%uint64(len(c.Proposers)))]
}

// ballotAbove is the smallest ballot above m owned by Proposers[pi]:
// ballots are round·P + pi + 1, so each proposer has its own and they are
// totally ordered.
func (c *Config) ballotAbove(m Ballot, pi int) Ballot {
	p := uint64(len(c.Proposers))
	round := uint64(0)
	if m > 0 {
		round = (uint64(m) - 1) / p
		if round*p+uint64(pi)+1 <= uint64(m) {
			round++
		}
	}
	return Ballot(round*p + uint64(pi) + 1)
}
