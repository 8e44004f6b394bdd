package replica

import (
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// replicaMaySend is the replica coordination's "may still send to"
// relation (env.Config.MaySend, used by persistent sets in depth-first
// search), for replica n in world w: whether a step of n may still hand a
// DATA or a COMMIT for r to the network. Every send of statemachine/replica
// leaves through the outbox (run: one per step), which is filled by two
// rules only:
//
//   - sendStep, at a Send(dst) of the program: the master's transmit puts
//     DATA for the live replicas of dst and COMMIT for the other live
//     replicas of its own logical process (a replica that is not master
//     backs the message up instead; since it may become master, any
//     replica counts as a sender);
//   - suspect, when the master of n's logical process is reported dead and
//     n becomes master: takeOver re-sends the backup (resendBackup: DATA
//     for the destinations of the backup entries, COMMIT for n's group)
//     and re-commits the log (recommitLog: COMMIT for n's group).
//
// So n may still send to r (of logical process j) only if: its outbox
// holds a message to r; or a Send to j is left in its program (from its
// PC on), or j is its own logical process and a Send is left; or n may
// still take over and j is its own logical process or the destination of
// a backup entry (entries added later come from Sends still in the
// program, counted above). n may take over only when it is not master:
// with the environment's perfect detector (perfect), only when every
// replica of its group with a lower index is crashed or may still crash
// within the budget left (the master is the lowest index not reported
// dead, and a perfect detector reports only crashes); on the gossip stack
// a declaration may be false, so any replica that is not master may.
//
// Every clause only turns from true to false as the run goes on: the PC
// only advances, the outbox only sends what it held or what a Send or a
// take-over added, a master stays master (the dead set only grows), and
// the budget only shrinks. The mutants change whether a replica sends
// (non-master-sends: a Send of the program, counted), the order of the
// messages of a send (commit-before-send), MIDs (mid-without-time,
// replica-clock, resend-own-mid), what a take-over sends (no-backup-resend,
// no-log-recommit: fewer sends) and reception, never a destination. The
// guard (models/all TestPersistentSoundness) compares every mutant with
// and without the reduction, and TestMaySendSound checks the relation on
// every transition of small models.
func replicaMaySend(w *env.World, l sm.Layout, progs []sm.Program, budget int, perfect bool, n *sm.Node, r core.Rank) bool {
	if n.HasOutbound(r) {
		return true
	}
	i := n.Logical()
	j, _, ok := l.Of(r)
	if !ok {
		return false
	}
	for _, in := range progs[i][min(n.PC(), len(progs[i])):] {
		if in.Op == sm.OpSend && (in.Peer == j || i == j) {
			return true
		}
	}
	if !mayTakeOver(w, l, budget, perfect, n) {
		return false
	}
	if i == j {
		return true
	}
	for _, m := range n.Backup() {
		if int(m.Dst) == j {
			return true
		}
	}
	return false
}

// mayTakeOver reports whether replica n may still become the master of
// its logical process (see replicaMaySend).
func mayTakeOver(w *env.World, l sm.Layout, budget int, perfect bool, n *sm.Node) bool {
	if n.IsMaster() {
		return false
	}
	if !perfect {
		return true
	}
	live := 0
	for k := range n.Index() {
		if !w.Crashed(l.Rank(n.Logical(), k)) {
			live++
		}
	}
	return live <= budget-w.Spent()
}

// maySend is the relation of the model on the environment's perfect
// detector (NewModel): replicaMaySend of the crash budget.
func maySend(l sm.Layout, progs []sm.Program, crashes int) func(w *env.World, p, r core.Rank) bool {
	return func(w *env.World, p, r core.Rank) bool {
		n, ok := w.Node(p).(*sm.Node)
		if !ok {
			return true
		}
		return replicaMaySend(w, l, progs, crashes, true, n, r)
	}
}

// stackMaySend is the relation of the P2P-MPI stack (NewStackModel): host
// p may send to r when its replica may (replicaMaySend, any replica that
// is not master may take over), when its gossip module may (GOSSIP to a
// partner of a round still to come, fd.Node.MayGossipTo; PING,
// fd.Node.MayPing), or when it may answer a PING of r with a PONG (a PING
// from r in flight, or r's module may still ping p). Those are all the
// sends of Host.Step: it routes each event to one part and wraps the
// part's sends.
func stackMaySend(l sm.Layout, progs []sm.Program) func(w *env.World, p, r core.Rank) bool {
	return func(w *env.World, p, r core.Rank) bool {
		h, ok := w.Node(p).(*Host)
		if !ok {
			return true
		}
		if replicaMaySend(w, l, progs, 0, false, h.rep, r) || h.det.MayGossipTo(r) || h.det.MayPing(r) {
			return true
		}
		if !w.Crashed(r) {
			if q, ok := w.Node(r).(*Host); !ok || q.det.MayPing(p) {
				return true
			}
		}
		for _, e := range w.InFlight() {
			if e.From != r || e.To != p {
				continue
			}
			if m, ok := e.Msg.(Wire); ok && m.Layer == LayerFD {
				if _, ok := m.Msg.(fd.Ping); ok {
					return true
				}
			}
		}
		return false
	}
}
