package paxos

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// Renaming processes. A permutation perm of 0 … N−1 that maps the
// proposers, the acceptors and the learners each onto themselves, keeping
// the order of succession (Proposers[i] ↦ Proposers[i]) and of the
// learners' acknowledgements (Learners[i] ↦ Learners[i]) where the
// permutation moves only acceptors that hold no other role, is a symmetry
// of the protocol: the rules (rules.go) treat acceptors alike and read
// their ranks only as members of sets (promises, voters, suspicions).
// Node.Permute and the messages' Permute rename a state and a message;
// the checker uses them for symmetry reduction (checker/env
// PermutableMachine and PermutableMessage).

// CheckPermutation reports whether perm is a permutation of the group c
// that Node.Permute supports: a bijection of 0 … N−1 that fixes every
// proposer (ballots and succession are by proposer index) and every
// learner (the coordinator's acknowledgements are by learner index), and
// maps the acceptors onto themselves.
func (c Config) CheckPermutation(perm []core.Rank) error {
	if len(perm) != c.N {
		return fmt.Errorf("paxos: permutation of length %d for N=%d", len(perm), c.N)
	}
	var seen core.RankSet
	for r, q := range perm {
		if !q.Valid(c.N) || seen.Has(q) {
			return fmt.Errorf("paxos: %v is not a permutation of 0 … %d", perm, c.N-1)
		}
		seen.Add(q)
		p := core.Rank(r)
		switch {
		case (c.isProposer(p) || c.isLearner(p)) && q != p:
			return fmt.Errorf("paxos: permutation %v moves %v, a proposer or learner (ballots, succession and acknowledgements are by index)", perm, p)
		case c.isAcceptor(p) != c.isAcceptor(q):
			return fmt.Errorf("paxos: permutation %v maps %v to %v, not acceptor to acceptor", perm, p, q)
		}
	}
	return nil
}

// Permute returns the state n would have as process perm[self] of the
// group with every rank renamed by perm (env.PermutableMachine): its
// suspicions, the coordinator it believes in, the voters of its tallies,
// the promises and voters of its coordination, and the origins of the
// commands it holds. perm must pass Config.CheckPermutation (it is not
// checked again); n is not changed.
func (n *Node) Permute(perm []core.Rank) core.Machine {
	c := n.clone()
	c.self = perm[n.self]
	c.r = n.cfg.rolesOf(c.self)
	for i := range c.accepted {
		c.accepted[i].V = c.accepted[i].V.permute(perm)
	}
	permuteCommands(c.log, perm)
	c.suspected = permuteSet(n.suspected, perm)
	if n.leader != core.NoRank {
		c.leader = perm[n.leader]
	}
	permuteCommands(c.pending, perm)
	for i := range c.tallies {
		c.tallies[i].v = c.tallies[i].v.permute(perm)
		c.tallies[i].voters = permuteSet(n.tallies[i].voters, perm)
	}
	if k := c.coord; k != nil {
		k.promises = permuteSet(n.coord.promises, perm)
		permuteVotes(k.reported, perm)
		for i := range k.slots {
			k.slots[i].v = k.slots[i].v.permute(perm)
			k.slots[i].voters = permuteSet(n.coord.slots[i].voters, perm)
		}
		permuteCommands(k.queue, perm)
	}
	return c
}

// permute renames the command's origin (the no-op has none).
func (c Command) permute(perm []core.Rank) Command {
	if !c.IsNoop() {
		c.Origin = perm[c.Origin]
	}
	return c
}

// permuteCommands renames the origins of cs in place.
func permuteCommands(cs []Command, perm []core.Rank) {
	for i := range cs {
		cs[i] = cs[i].permute(perm)
	}
}

// permuteVotes renames the origins of the values of vs in place.
func permuteVotes(vs []Vote, perm []core.Rank) {
	for i := range vs {
		vs[i].V = vs[i].V.permute(perm)
	}
}

func permuteSet(s core.RankSet, perm []core.Rank) core.RankSet {
	var out core.RankSet
	s.Each(func(r core.Rank) { out.Add(perm[r]) })
	return out
}

// Permute renames the command's origin.
func (m Request) Permute(perm []core.Rank) core.Message { return Request{Cmd: m.Cmd.permute(perm)} }

// Permute returns m: PREPARE names no rank.
func (m Prepare) Permute([]core.Rank) core.Message { return m }

// Permute renames the origins of the reported votes' values.
func (m Promise) Permute(perm []core.Rank) core.Message {
	m.Votes = slices.Clone(m.Votes)
	permuteVotes(m.Votes, perm)
	return m
}

// Permute renames the value's origin.
func (m Accept) Permute(perm []core.Rank) core.Message { m.V = m.V.permute(perm); return m }

// Permute renames the value's origin.
func (m Accepted) Permute(perm []core.Rank) core.Message { m.V = m.V.permute(perm); return m }

// Permute returns m: NACK names no rank.
func (m Nack) Permute([]core.Rank) core.Message { return m }

// Permute renames the origins of the decided values.
func (m Decided) Permute(perm []core.Rank) core.Message {
	m.Values = slices.Clone(m.Values)
	permuteCommands(m.Values, perm)
	return m
}

// Permute returns m: LEARNED names no rank.
func (m Learned) Permute([]core.Rank) core.Message { return m }
