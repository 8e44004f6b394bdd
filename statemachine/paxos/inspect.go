package paxos

import (
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// Read-only views of a node, for properties, models and tests.

// Rank is the node's rank.
func (n *Node) Rank() core.Rank { return n.self }

// Config is the group's configuration (with its defaults filled in).
func (n *Node) Config() Config { return *n.cfg }

// Promised is the acceptor's promised ballot (0: none).
func (n *Node) Promised() Ballot { return n.promised }

// Votes lists the acceptor's votes by ascending instance.
func (n *Node) Votes() []Vote { return slices.Clone(n.accepted) }

// Log lists the decisions delivered: instance i decided Log()[i].
func (n *Node) Log() []Command { return slices.Clone(n.log) }

// Pending lists the proposals made here that have not returned.
func (n *Node) Pending() []Command { return slices.Clone(n.pending) }

// Leader is the coordinator in this node's view (core.NoRank: every
// proposer is suspected).
func (n *Node) Leader() core.Rank { return n.leader }

// Coordinating reports whether the node coordinates, and its ballot.
func (n *Node) Coordinating() (Ballot, bool) {
	if n.coord == nil {
		return 0, false
	}
	return n.coord.b, true
}

// Preparing reports whether the node coordinates and is in phase 1.
func (n *Node) Preparing() bool { return n.coord != nil && n.coord.preparing }

// TimerArmed reports whether TimerRetransmit is armed.
func (n *Node) TimerArmed() bool { return n.armed }
