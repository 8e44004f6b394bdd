package replica

import "github.com/ftkernel/ftkernel/core"

// Rank is the replica's environment rank.
func (n *Node) Rank() core.Rank { return n.self }

// Logical is the replica's logical process i (it is P_i^k).
func (n *Node) Logical() int { return n.lp }

// Index is the replica's index k (it is P_i^k).
func (n *Node) Index() int { return n.idx }

// Finished reports whether the replica has run its whole program and sent
// every message of its outbox (an empty program is finished unstarted).
func (n *Node) Finished() bool {
	prog := n.cfg.Programs[n.lp]
	return (n.started || len(prog) == 0) && n.pc >= len(prog) && len(n.outbox) == 0
}

// Waiting reports whether the replica is blocked at a Recv: started, not at
// the end of its program, outbox empty.
func (n *Node) Waiting() bool {
	return n.started && n.pc < len(n.cfg.Programs[n.lp]) && len(n.outbox) == 0
}

// BackupLen is the number of entries of the backup table.
func (n *Node) BackupLen() int { return len(n.backup) }

// Backup lists the MIDs of the backup table, ascending.
func (n *Node) Backup() []MID {
	out := make([]MID, len(n.backup))
	for i, e := range n.backup {
		out[i] = e.MID
	}
	return out
}

// QueueLen is the number of received messages not delivered yet.
func (n *Node) QueueLen() int { return len(n.queue) }

// IsMaster reports whether the replica is the master of its logical process
// in its own view.
func (n *Node) IsMaster() bool { return n.master(n.lp) == n.self }

// Sent is the number of DATA and COMMIT messages this replica has handed to
// the network.
func (n *Node) Sent() (data, commits uint64) { return n.sentData, n.sentCommit }

// PC is the index of the program instruction the replica executes next
// (the program's length once it has run it all).
func (n *Node) PC() int { return n.pc }

// HasOutbound reports whether the outbox holds a message to r, handed to
// the network at a later step (one per step, on PumpTimer).
func (n *Node) HasOutbound(r core.Rank) bool {
	for _, p := range n.outbox {
		if p.To == r {
			return true
		}
	}
	return false
}
