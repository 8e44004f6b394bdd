package gossipfd

import "github.com/ftkernel/ftkernel/core"

// start is the start-up of a module: it arms the gossip timer, whose first
// firing is round 1.
//
// Ambiguity: §5.3 relies on "the initial heartbeat adjustment", never
// described in the chapter. Our start-up assumption: all modules start with
// hb = 0 and lastInc = 0 for every host, and are started together, so their
// round indexes agree (Config.Offsets relaxes the latter).
func (n *Node) start(out []core.Effect) []core.Effect {
	n.started = true
	return append(out, core.Effect{Kind: core.EffSetTimer, Timer: TimerGossip, Delay: n.cfg.TGossip})
}

// gossipRound is one gossip step (§5.1): "each module repeatedly chooses
// some other modules and sends them a gossip message consisting in its table
// with its heartbeat incremented", once per T_gossip ("the time interval
// between two consecutive gossip messages"). The round index g grows by
// one; the cleanup check runs on what was merged so far; then hb[s] ← g and
// the table goes to the destination of round g, and the timer is re-armed
// (unless Config.MaxRounds rounds are done).
// A destination equal to the node itself (only a mutant's routing can give
// one) sends nothing.
func (n *Node) gossipRound(out []core.Effect) []core.Effect {
	n.g++
	out = n.cleanupCheck(out)
	n.hb[n.self] = n.g
	n.lastInc[n.self] = n.g
	if d, ok := n.destinationAt(n.g); ok && d != n.self {
		out = append(out, core.Send(d, Gossip{Table: append([]uint64(nil), n.hb...)}))
	}
	if n.cfg.MaxRounds > 0 && n.g >= n.cfg.MaxRounds {
		return out // the bounded run is over (Config.MaxRounds)
	}
	return append(out, core.Effect{Kind: core.EffSetTimer, Timer: TimerGossip, Delay: n.cfg.TGossip})
}

// destination is the gossip partner of round g: Plan for Random, Eqs. 3–5
// otherwise, with r = ((g − 1 + offset) mod cycle) + 1 (§5.1: r is "a
// circular counter" reset to 1 at the end of a cycle). Under RouteLive the
// equations run over the ring of the hosts not declared (and a Random
// partner that is declared is skipped); false when there is nobody to send
// to. It is read for round g with the current declared set (gossipRound
// asks for the round it is in, MayGossipTo for the rounds still to come).
func (n *Node) destinationAt(g uint64) (core.Rank, bool) {
	c := n.cfg
	if c.Variant == Random {
		d := c.Plan.Partner(n.self, g)
		if c.Routing == RouteLive && n.declared.Has(d) {
			return 0, false
		}
		return d, true
	}
	off := uint64(c.offsetOf(int(n.self)))
	if c.Routing == RouteFixed {
		r := int((g-1+off)%uint64(Cycle(c.Variant, c.N))) + 1
		return core.Rank((int(n.self) + offset(c.Variant, c.N, r, c.Mutant)) % c.N), true
	}
	ring := make([]core.Rank, 0, c.N)
	at := 0
	for x := range core.Rank(c.N) {
		if x == n.self {
			at = len(ring)
		}
		if !n.declared.Has(x) {
			ring = append(ring, x)
		}
	}
	m := len(ring)
	if m < 2 {
		return 0, false
	}
	r := int((g-1+off)%uint64(Cycle(c.Variant, m))) + 1
	return ring[(at+offset(c.Variant, m, r, c.Mutant))%m], true
}

// merge is the receipt of a GOSSIP (§5.1): the module "merges its local
// table with all received tables and adopts for each host the maximum
// heartbeat found". An entry that grows records lastInc[x] ← g and
// withdraws a pending suspicion of x (its heartbeat "has increased"). The
// node's own entry is its own counter and is never taken from a table. A
// declared host stays declared: the declaration was notified (§3.2 step 11).
func (n *Node) merge(table []uint64) {
	for i, v := range table {
		x := core.Rank(i)
		if x == n.self || !adopt(n.hb[x], v, n.cfg.Mutant) {
			continue
		}
		if v > n.hb[x] {
			n.lastInc[x] = incRound(n.g, v, n.cfg.Mutant)
			n.suspected.Remove(x)
		}
		n.hb[x] = v
	}
}

// cleanupCheck is the suspicion rule (§5.1): "If a heartbeat for a host A
// … has not increased after a certain timeout, host B suspects that host A
// has crashed", the timeout being T_cleanup, "the time interval after which
// a host is suspected to have failed". In rounds: x is suspected when
// g − lastInc[x] > Cleanup. Hosts already suspected or declared are skipped.
func (n *Node) cleanupCheck(out []core.Effect) []core.Effect {
	for i := range n.cfg.N {
		x := core.Rank(i)
		if x == n.self || n.suspected.Has(x) || n.declared.Has(x) {
			continue
		}
		if stale(n.g-n.lastInc[x], n.cfg.Cleanup, n.cfg.Mutant) {
			out = n.suspect(x, out)
		}
	}
	return out
}

// suspect starts the consensus phase about x (§5.1: "In general, it follows
// a consensus phase about host A failure"; §5.3: "check that a suspected
// host has really failed through a ping of that host"): PING to x and the
// ping timer. Without Config.Ping the suspicion is the declaration.
func (n *Node) suspect(x core.Rank, out []core.Effect) []core.Effect {
	if !n.cfg.Ping {
		return n.declare(x, out)
	}
	n.suspected.Add(x)
	out = append(out, core.Send(x, Ping{}))
	return append(out, core.Effect{Kind: core.EffSetTimer, Timer: TimerPingBase + uint64(x), Delay: n.cfg.PingTimeout})
}

// declare declares x failed and notifies the local process (§3.2 step 11:
// the FD "will notify MPI processes if they become aware of a node
// failure"), as EffSuspect. Declarations are local: they are not gossiped
// (the chapter describes no such message).
func (n *Node) declare(x core.Rank, out []core.Effect) []core.Effect {
	n.suspected.Remove(x)
	n.declared.Add(x)
	return append(out, core.Effect{Kind: core.EffSuspect, Peer: x})
}

// recvPing answers a PING with PONG(hb[s]): a live host answers.
func (n *Node) recvPing(q core.Rank, out []core.Effect) []core.Effect {
	if !answersPing(n.cfg.Mutant) {
		return out
	}
	return append(out, core.Send(q, Pong{HB: n.hb[n.self]}))
}

// recvPong is a successful ping of q.
//
// Ambiguity: the paper says only that the ping checks "that a suspected
// host has really failed" and that it "has been triggered only for real
// failures" in their runs. Under PongRefresh (default) the suspicion is
// withdrawn and q's timeout restarts (lastInc[q] ← g, hb[q] ← max with the
// PONG's heartbeat), so q is suspected again only after another T_cleanup
// without news. Under PongWithdrawOnly the suspicion is just withdrawn. A
// PONG for a host not (or no longer) suspected changes nothing.
func (n *Node) recvPong(q core.Rank, m Pong) {
	if !n.suspected.Has(q) {
		return
	}
	n.suspected.Remove(q)
	if n.cfg.OnPong == PongRefresh {
		n.hb[q] = max(n.hb[q], m.HB)
		n.lastInc[q] = n.g
	}
}

// pingExpired is the end of the ping timeout for x (T_consensus, §5.1:
// "the time interval after which consensus is reached about a failed
// node"): if x is still suspected, no PONG came, and x is declared.
func (n *Node) pingExpired(x core.Rank, out []core.Effect) []core.Effect {
	if !n.suspected.Has(x) {
		return out
	}
	return n.declare(x, out)
}
