package gossipfd

import (
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// maySend is the gossip detector's "may still send to" relation
// (env.Config.MaySend, used by persistent sets in depth-first search) for
// the bounded-delay model: host p may still send to r exactly when
//
//   - r is the gossip partner of one of p's rounds still to come
//     (fd.Node.MayGossipTo: the variant's destination function, Eqs. 3–5 or
//     the Random plan, for rounds g+1 … max-rounds; any undeclared host
//     under live routing), or
//   - p may still ping r (fd.Node.MayPing: with the ping phase, a round
//     left, r undeclared and stale enough by p's last round), or
//   - p may answer r's PING with a PONG (recvPing): a PING from r to p is
//     in flight, or r may still ping p.
//
// These are all the sends of statemachine/gossipfd (gossipRound,
// cleanupCheck's suspect, recvPing). Each clause only turns from true to
// false as the run goes on (rounds pass, declared and lastInc grow, a
// PING in flight is delivered or was never sent), so a false answer holds
// on every path. The mutants change the offsets (brr-offset-2r,
// dbrr-same-direction: read through destinationAt, which applies them),
// the merge (merge-last-received: lastInc still only grows), the stale
// test (cleanup-ge, never-suspect: read through stale), or answer no PING
// (ping-never-answers: fewer sends). The guard (models/all
// TestPersistentSoundness) compares every mutant's depth-first search with
// and without the reduction, and TestMaySendSound checks the relation
// against every transition of small models.
func maySend(w *env.World, p, r core.Rank) bool {
	n, ok := w.Node(p).(*fd.Node)
	if !ok {
		return true
	}
	if n.MayGossipTo(r) || n.MayPing(r) {
		return true
	}
	if !w.Crashed(r) {
		if q, ok := w.Node(r).(*fd.Node); !ok || q.MayPing(p) {
			return true
		}
	}
	for _, e := range w.InFlight() {
		if e.From == r && e.To == p {
			if _, ok := e.Msg.(fd.Ping); ok {
				return true
			}
		}
	}
	return false
}
