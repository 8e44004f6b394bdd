package dgrp

import (
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// Rank is the node's rank.
func (n *Node) Rank() core.Rank { return n.self }

// Round is the current test round (0 before Start).
func (n *Node) Round() uint32 { return n.round }

// Done reports whether the node passed the barrier of the last round.
func (n *Node) Done() bool { return n.ph == phaseDone }

// Syndrome is a copy of the event counters, one per rank.
func (n *Node) Syndrome() []uint32 { return slices.Clone(n.syndrome) }

// Fails is the set of ranks this node tested non-recommended in round r,
// false when it has not closed round r or has forgotten it (it keeps the
// last two rounds).
//
// With it come the event counters this node held right after those tests.
func (n *Node) Fails(r uint32) (core.RankSet, []uint32, bool) {
	f := n.fails[r%2]
	return f.S, f.C, r > 0 && f.R == r
}

// ViewAt is the view this node read at the barrier of round r, false when
// it has not passed that barrier or has forgotten it (it keeps the last
// two).
//
// With it come the event counters the view was read from.
func (n *Node) ViewAt(r uint32) (core.RankSet, []uint32, bool) {
	v := n.views[r%2]
	return v.S, v.C, r > 0 && v.R == r
}

// LastBarrier is the last round whose barrier this node passed (0: none).
func (n *Node) LastBarrier() uint32 {
	b := max(n.views[0].R, n.views[1].R)
	return b
}

// Made is, per rank, the highest event counter a failed test here created
// (0: none).
func (n *Node) Made() []uint32 { return slices.Clone(n.made) }

// Requests lists the READMIT_REQs this node sent (rank, counter), in order.
func (n *Node) Requests() []Event { return slices.Clone(n.requests) }

// Proposals lists the re-admissions this node proposed as leader.
func (n *Node) Proposals() []Proposal { return slices.Clone(n.proposals) }

// Admitted lists the re-admissions this node applied (rank, counter
// decided), in order.
func (n *Node) Admitted() []Event { return slices.Clone(n.admitted) }

// Decided is the embedded consensus machine's log of decided commands.
func (n *Node) Decided() []string { return n.cfg.Consensus.Log(n.cons) }
