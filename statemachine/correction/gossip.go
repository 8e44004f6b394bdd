package correction

// Corrected Gossip dissemination (Hoefler, Barak, Shiloh, Drezner,
// "Corrected Gossip Algorithms for Fast Reliable Broadcast on Unreliable
// Systems", IPDPS'17), as the corrected-trees paper summarises it in §3.1:
//
//	"The root sends the broadcast payload to a random subset of other
//	processes. When a new process is thus colored, it starts sending
//	messages as well. This dissemination runs for a fixed period of time,
//	after which all colored processes enter the correction phase."
//
// and §3.3: "The correction phase of Corrected Gossip starts at a
// pre-specified moment in time simultaneously on all processes"
// (synchronized correction). The correction phase is the package's own
// (opportunistic, optimized, checked or delayed, §3.1/§3.3), unchanged:
// the processes colored by gossip are its participants, exactly as the
// processes colored by a tree are (§3.1: "processes that become colored
// during correction do not send any messages").
//
// # Rules, as implemented
//
//   - G1 (randomness is an input). The random partners are not drawn by
//     the machine: a GossipPlan, built outside from a seed, gives every
//     process r its partner sequence Partners(r). The machine stays pure
//     and deterministic; the same plan gives the same run.
//   - G2 (root). Broadcast colors the root, which then sends one gossip
//     message per send slot (TimerSendSlot) to Partners(0)[0],
//     Partners(0)[1], …
//   - G3 (coloring). An uncolored process that receives a gossip message
//     delivers, becomes a participant of correction, and gossips in the
//     same way to its own partners. A colored process ignores further
//     gossip messages (masked duplicates, §2.1).
//   - G4 (end of gossip). A process gossips until the synchronized start of
//     correction (EvTimer(TimerStart), the end of the "fixed period of
//     time") or until its partner sequence is exhausted, whichever comes
//     first; it never gossips after TimerStart, and a process colored by a
//     gossip message after TimerStart starts correction at once without
//     gossiping.
//   - G5 (sends). A gossip message is a dissemination message: it is a TREE
//     message on the wire (KindTree), the process it colors is ViaTree, and
//     the i-th gossip message of r (i counted from 0) goes to
//     Partners(r)[i]. Send bound (§2.1 Termination): Rounds() gossip
//     messages plus the correction's.
//
// # Choices where the sources are silent or ambiguous
//
//   - Time. The summary says the gossip phase lasts "a fixed period of
//     time". A LogP runtime ends it with TimerStart at the gossip time T
//     (checker/logp delivers it before anything else of instant T, so gossip
//     sends start at t < T, as in the authors' simulator flogsim, whose
//     gossip phase stops sending at start+T). An asynchronous runtime has no
//     clock: there the phase is bounded by the partner sequence, like the
//     MPI prototype of §4.4, which fixes "the number of rounds the gossip
//     phase lasts" instead of a wall-clock limit.
//   - One message per send slot. §4.1: gossiping processes "send 30 − t_c
//     messages" in a 30-step phase (t_c: coloring time), i.e. one message
//     every o from coloring on; so one gossip message per send slot.
//   - Partners. "A random subset of other processes": the plan must never
//     name the process itself; it may name the root or repeat a partner
//     (independent uniform draws over the other P−1 ranks, as flogsim
//     does; the MPI prototype also excludes the root). Which distribution
//     the plan follows is the plan builder's choice (registry: uniform).
//   - Late gossip. A process colored by a gossip message after TimerStart
//     is still colored by dissemination and takes part in correction
//     (flogsim marks it reached before it leaves the gossip phase); it is
//     not told to gossip.
//   - Start. Corrected Gossip's correction is synchronized (§3.3); an
//     overlapped start is refused (Config.Validate).
//
// Failure-proof correction (§3.1: "a generalization of checked correction
// that guarantees each process to be colored even in the presence of
// failures during correction", deferred to the gossip paper) is not
// implemented: its rules were not found in any source we could read (see
// docs/correction.md).

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// GossipPlan is the input of Corrected Gossip dissemination (rule G1): the
// partner sequence of every process, Rounds() partners each. It is
// immutable once built and may be shared by any number of nodes.
type GossipPlan struct {
	p, rounds int
	partners  []core.Rank // partners[r*rounds+i]
}

// NewGossipPlan tabulates partner(r, i), the i-th gossip partner of process
// r, for r < P and i < rounds. Each partner must be a rank in 0…P-1 other
// than r. partner is called in the order r = 0…P-1, i = 0…rounds-1, so a
// seeded generator behind it gives a reproducible plan.
func NewGossipPlan(P, rounds int, partner func(r core.Rank, i int) core.Rank) (*GossipPlan, error) {
	switch {
	case P < 2:
		return nil, fmt.Errorf("correction: gossip needs at least 2 processes, got P=%d", P)
	case rounds < 0:
		return nil, fmt.Errorf("correction: gossip rounds %d < 0", rounds)
	case rounds > 0 && P > (1<<31-1)/rounds:
		return nil, fmt.Errorf("correction: gossip plan of %d×%d partners is too large", P, rounds)
	}
	g := &GossipPlan{p: P, rounds: rounds, partners: make([]core.Rank, P*rounds)}
	for r := range P {
		for i := range rounds {
			q := partner(core.Rank(r), i)
			if !q.Valid(P) || int(q) == r {
				return nil, fmt.Errorf("correction: gossip partner %d of p%d is %v: want a rank in 0..%d other than p%d", i, r, q, P-1, r)
			}
			g.partners[r*rounds+i] = q
		}
	}
	return g, nil
}

// P is the process count the plan is for.
func (g *GossipPlan) P() int { return g.p }

// Rounds is the length of every partner sequence: the most gossip messages
// one process sends.
func (g *GossipPlan) Rounds() int { return g.rounds }

// Partners is process r's partner sequence (read-only).
func (g *GossipPlan) Partners(r core.Rank) []core.Rank {
	return g.partners[int(r)*g.rounds : (int(r)+1)*g.rounds]
}

// validateGossip: the plan matches the topology's P, and correction starts
// synchronized (§3.3).
func (c *Config) validateGossip() error {
	if c.Gossip == nil {
		return nil
	}
	if c.Gossip.p != c.Topology.P() {
		return fmt.Errorf("correction: gossip plan for P=%d, topology for P=%d", c.Gossip.p, c.Topology.P())
	}
	if c.Start != Synchronized && c.Correction != NoCorrection {
		return fmt.Errorf("correction: Corrected Gossip starts correction synchronized (§3.3), not %v", c.Start)
	}
	return nil
}

// gossipNext is the index of the next gossip message. A process sends
// nothing before it is colored (§2.1), and nothing but gossip before
// correction starts, so its send count is the number of gossip messages
// sent so far.
func (n *Node) gossipNext() int { return int(n.sent) }

// startGossip replaces the tree sends of a newly colored process (G2, G3):
// unless the gossip phase is over (G4), it asks for a send slot.
func (n *Node) startGossip(out []core.Effect) []core.Effect {
	if n.flags&fStartSeen != 0 || n.gossipNext() >= n.cfg.Gossip.rounds {
		return out
	}
	return n.armSlot(out)
}

// sendGossip runs at a send slot before correction has started (G4): the
// next gossip message goes to the next partner (G5), and another slot is
// asked for while partners remain.
func (n *Node) sendGossip(out []core.Effect) []core.Effect {
	i := n.gossipNext()
	if n.flags&fParticipant == 0 || n.flags&fStartSeen != 0 || i >= n.cfg.Gossip.rounds {
		return out
	}
	out = append(out, core.Send(n.cfg.Gossip.Partners(n.rank)[i], &n.msgs.tree))
	if i+1 < n.cfg.Gossip.rounds {
		out = n.armSlot(out)
	}
	return out
}
