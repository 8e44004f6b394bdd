package ringfd

import "github.com/ftkernel/ftkernel/core"

func setTimer(id, delay uint64) core.Effect {
	return core.Effect{Kind: core.EffSetTimer, Timer: id, Delay: delay}
}

func suspect(q core.Rank) core.Effect { return core.Effect{Kind: core.EffSuspect, Peer: q} }

// start arms the daemon's timers at time 0 (τ_0 = 0): the heartbeat timer,
// so that m_i leaves at τ_i = i·δ (§4.5 ¶2, "with a configurable period
// δ"), and the observation timer on the initial predecessor d − 1: the
// deadline η under TimerReset (the spec's "deadline = t0 + η"), the first
// freshness point τ_1 + η under Freshness.
func (n *Daemon) start(out []core.Effect) []core.Effect {
	n.started = true
	if n.cfg.N < 2 {
		return out // no ring (N = 1): nothing to emit or observe
	}
	out = append(out, setTimer(TimerHeartbeat, n.cfg.Period))
	switch {
	case n.pred == core.NoRank:
	case n.cfg.Trust == Freshness:
		out = append(out, n.observeDelay(n.cfg.Period+n.cfg.Timeout))
	default:
		out = append(out, n.observeDelay(n.cfg.Timeout))
	}
	return out
}

// observeDelay arms TimerObserve after delay ticks.
func (n *Daemon) observeDelay(delay uint64) core.Effect { return setTimer(TimerObserve, delay) }

// heartbeatTick is the emission rule of §4.5 ¶2: "The predecessor
// periodically sends heartbeat messages to d (with a configurable period
// δ). At the same time, d sends heartbeat messages to its own observer."
// Every δ the daemon sends HB(m_i) to obs, i counting from 1, and re-arms.
// Ambiguity: the paper does not say whether a daemon keeps sending to an
// observer it knows dead; nothing tells it to stop, so it does.
func (n *Daemon) heartbeatTick(out []core.Effect) []core.Effect {
	if n.obs != core.NoRank {
		out = append(out, core.Send(n.obs, HB{Seq: n.hbSeq}))
		n.hbSeq = n.cfg.nextSeq(n.hbSeq)
	}
	return append(out, setTimer(TimerHeartbeat, n.cfg.Period))
}

// recvHB is the receiving half of the trust rule (§4.5 ¶2): "o knows that
// d is alive if it has received the heartbeat message m_i or higher".
// A heartbeat counts only if it comes from pred and is fresher than any
// received from it (seq > lastSeq, or ahead of it in the window with
// Config.SeqWindow; "or higher" makes the rule immune to reordering). Heartbeats from any other daemon (a former predecessor, or
// one that still believes this daemon is its observer) are ignored.
// Under TimerReset a counted heartbeat re-arms the timeout: deadline = now
// + η. Under Freshness it only raises lastSeq, read at the next freshness
// point. A heartbeat that arrives before Start is recorded; the timeout is
// armed by Start.
func (n *Daemon) recvHB(from core.Rank, m HB, out []core.Effect) []core.Effect {
	if from != n.pred || !n.cfg.fresher(m.Seq, n.lastSeq) {
		return out
	}
	n.lastSeq = m.Seq
	if n.cfg.Trust == TimerReset && n.started {
		out = append(out, n.observeDelay(n.cfg.Timeout))
	}
	return out
}

// observeTimer is the suspicion half of the trust rule (§4.5 ¶2):
// "Otherwise, o suspects that d has failed and initiates the propagation of
// the failure of d."
//
// Ambiguity: the paper's formula, "Let τ'_i = τ_i + t. At any time t ∈
// [τ'_i, τ'_{i+1}], o knows that d is alive if it has received the
// heartbeat message m_i or higher", reuses t for a shift; read as τ'_i =
// τ_i + η it is the freshness-point detector of Chen, Toueg and Aguilera
// (the paper's ref. [16]), Config.Trust = Freshness: at each τ_i + η the
// observer increments i and suspects pred unless lastSeq ≥ i. It needs the
// emitter's schedule, which is shared here (every daemon starts at 0 with
// the same δ); its latency for a crash between τ_j and τ_{j+1} is in (η, η
// + δ]. The measured latencies, "between (δ, η)" (§5.4) and "lands in the
// interval [δ, η]" (§5.6) with η = 2δ, fit the timer-reset reading (latency
// in (η − δ, η] plus the last heartbeat's delay), so TimerReset is the
// default: when the timer falls due, no fresh heartbeat came for η.
func (n *Daemon) observeTimer(out []core.Effect) []core.Effect {
	if n.pred == core.NoRank {
		return out // nothing to observe: a stale timer
	}
	if n.cfg.Trust == Freshness {
		n.fresh++
		if n.lastSeq >= n.fresh {
			return append(out, n.observeDelay(n.cfg.Period))
		}
	}
	return n.timeout(out)
}

// timeout handles the detection of pred's failure by its observer (§4.5
// ¶3–4): "When the observer detects that its predecessor has failed, it
// undergoes two major steps. First, it needs to reconnect the ring
// topology" (mend), then "the observer component calls the propagation
// component to broadcast the fault information to other daemons, and then
// notify its local processes" (StartPropagation). The handler is atomic, so
// the order shows only in the order of the effects.
func (n *Daemon) timeout(out []core.Effect) []core.Effect {
	d := n.pred
	out = append(out, suspect(d))
	out = n.mend(d, out)
	return n.startPropagation(d, out)
}

// mend reconnects the ring after pred d was detected dead (§4.5 ¶3, Fig. 3):
// "Daemon o tries to observe the predecessor of d (the daemon it previously
// observed). It sets d-1 as its new predecessor and then sends a request to
// d-1 to initiate heartbeat emission. Of course, it is possible that d-1 has
// also failed, which will be detected at the next timeout. In order to speed
// up the reconnection process, o may skip over daemons that have already
// been reported as failed in the past (i.e., daemons whose identifier is in
// Reported_o ...)."
//
// "d−1" is taken in ring order (Config.Ring). With the skip (the default;
// Config.NoSkip turns it off) the search goes on past every daemon in
// Reported_o. When it comes back to o itself every other daemon is
// reported: pred := ⊥. Otherwise pred := p, lastSeq := 0, HBRequest to p,
// and p must be heard from within η (TimerReset: "which will be detected
// at the next timeout") or by the next freshness point (Freshness: δ
// later; Ambiguity: the paper does not say how freshness points apply to a
// newly requested emitter; here the shared schedule continues, so the
// first heartbeat must arrive within δ).
func (n *Daemon) mend(d core.Rank, out []core.Effect) []core.Effect {
	n.lastSeq = 0
	if !n.cfg.mends() {
		n.pred = core.NoRank
		return out
	}
	p := n.cfg.RingPred(d)
	for n.cfg.skips() && p != n.d && n.reported.Has(p) {
		p = n.cfg.RingPred(p)
	}
	if p == n.d {
		n.pred = core.NoRank
		return out
	}
	n.pred = p
	out = append(out, core.Send(p, HBRequest{}))
	if n.cfg.Trust == Freshness {
		return append(out, n.observeDelay(n.cfg.Period))
	}
	return append(out, n.observeDelay(n.cfg.mendTimeout()))
}

// recvHBRequest is the new predecessor's side of mending (§4.5 ¶3, "a
// request to d-1 to initiate heartbeat emission"): obs := src.
// Ambiguity: one observer or several? "a given daemon is observed by a
// single other daemon" (§4.7.2), so the request replaces the observer.
// Ambiguity: does emission start at once or at the next tick? Waiting for
// the tick costs up to δ of the requester's η, which with η = 2δ leaves
// only δ for the request and the heartbeat together (a false suspicion as
// soon as their delays add up to δ); so one heartbeat leaves at once, the
// next ones on the usual schedule. Config.RequestWaitsForTick waits.
func (n *Daemon) recvHBRequest(src core.Rank, out []core.Effect) []core.Effect {
	n.obs = src
	if n.cfg.RequestWaitsForTick {
		return out
	}
	out = append(out, core.Send(src, HB{Seq: n.hbSeq}))
	n.hbSeq = n.cfg.nextSeq(n.hbSeq)
	return out
}

// localProcExit is the local detection of §4.4: the daemon observes the
// "unexpected termination of a local application process" through SIGCHLD
// (a core.Suspect event from a perfect local detector) and, with no
// timeout, calls StartPropagation(p) (Algorithm 1; §5.5 "we do not measure
// the effectiveness of the heartbeat mechanism").
func (n *Daemon) localProcExit(p core.Rank, out []core.Effect) []core.Effect {
	out = append(out, suspect(p))
	return n.startPropagation(p, out)
}

// startPropagation is Algorithm 1, procedure StartPropagation(Eid):
//
//	2: if (Eid ∉ Reported_i) then
//	3:   Add Eid to msg
//	4:   if Eid is a daemon then
//	5:     Obtain Hosted{Eid}
//	6:     add Hosted{Eid} to msg
//	7:   ReliableBroadcast(i, N, msg)
//	8:   Add msg to Reported_i
//
// Ambiguity: msg is declared as a variable "initially empty" outside the
// procedures; a global msg would re-send every earlier failure with each
// new one. It is taken as a fresh value per call (the prose: "This prepares
// a broadcast message containing the identifier of the failed process (or
// daemon), and the associated application processes", §4.6 (2)).
func (n *Daemon) startPropagation(eid core.Rank, out []core.Effect) []core.Effect {
	if n.reported.Has(eid) {
		return out
	}
	m := n.cfg.reportedWith(eid)
	out = n.reliableBroadcast(m, out)
	n.addReported(m)
	return out
}

// reliableBroadcast is Algorithm 1, procedure ReliableBroadcast(i, N, msg):
// a Fault(msg) to every BMG neighbour (lines 2–4, Config.Targets, which
// documents the loop's open points), then to every hosted process (lines
// 5–6, "for all lp ∈ Hosted{i} do i sends msg to lp", the star of §4.6).
// Ambiguity: Hosted{i} is never pruned in the paper, so hosted processes
// known dead get the message too (the runtime drops it); likewise BMG
// neighbours known dead under BMGPaper. Message counts include them.
func (n *Daemon) reliableBroadcast(m core.RankSet, out []core.Effect) []core.Effect {
	known := n.reported
	if n.cfg.BMG == BMGOMPI {
		known = known.Union(m)
	}
	var f core.Message = Fault{IDs: m} // boxed once for all the sends
	for _, t := range n.cfg.Targets(n.d, known) {
		out = append(out, core.Send(t, f))
	}
	for j := 0; j < n.cfg.Procs; j++ {
		out = append(out, core.Send(n.cfg.ProcRank(n.d, j), f))
	}
	return out
}

// forwarding is Algorithm 1, procedure FORWARDING(msg) at a daemon j:
//
//	2: if msg ⊄ Reported_j then
//	3:   if j is a daemon then
//	4:     ReliableBroadcast(j, N, msg)
//	5:   Add msg to Reported_j
//
// Ambiguity: "⊄" must mean "not a subset or equal": read as "not a proper
// subset", a copy equal to Reported_j passes and is forwarded again, for
// ever. So a daemon forwards exactly when msg carries an id it did not know
// ("If the message carries a list of processes that are already known to
// have failed, then the daemon already triggered the propagation, and no
// further action is needed", §4.6 (3)). The whole msg is forwarded, to every
// neighbour, the sender included.
func (n *Daemon) forwarding(m core.RankSet, out []core.Effect) []core.Effect {
	if !n.cfg.forwardGuard(m, n.reported) {
		return out
	}
	if n.cfg.forwards() {
		out = n.reliableBroadcast(m, out)
	}
	n.addReported(m)
	return out
}

// nextSeq is the heartbeat number after seq: seq + 1, wrapping to 1 after
// Config.SeqWindow.
func (c *Config) nextSeq(seq uint64) uint64 {
	if c.SeqWindow != 0 && seq >= c.SeqWindow {
		return 1
	}
	return seq + 1
}

// fresher reports whether heartbeat number seq is fresher than last (0:
// none received): seq > last, or with Config.SeqWindow W, seq − last mod W
// in 1 … W/2.
func (c *Config) fresher(seq, last uint64) bool {
	if c.SeqWindow == 0 || last == 0 {
		return seq > last
	}
	ahead := (seq + c.SeqWindow - last) % c.SeqWindow
	return ahead >= 1 && ahead <= c.SeqWindow/2
}
