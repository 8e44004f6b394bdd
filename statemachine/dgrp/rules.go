package dgrp

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// start arms the test interval; its first tick begins test round 1 (the
// processes start together, as an MPI job's do): every process starts recommended (spec §3.5
// init: syndrome[j] := 0) and tests every other process.
//
// Ambiguity (AMBIGUOUS-1, who tests): the model says "um processo
// recomendado … executa testes", the implementation "todos os processos se
// testam" (§4.3). Non-members must keep being tested, or ζ could never
// accumulate; we read the implementation: every process tests every other
// in every round, and what a non-member reports is ignored by the members
// (accepts).
func (n *Node) start(s Start, out []core.Effect) []core.Effect {
	n.slow = slices.Clone(s.Slow)
	slices.SortFunc(n.slow, func(a, b Slow) int {
		if a.Round != b.Round {
			return int(a.Round) - int(b.Round)
		}
		return int(a.Peer) - int(b.Peer)
	})
	n.ph = phaseBarrier // round 0's barrier, passed at the first tick
	return append(out, core.Effect{Kind: core.EffSetTimer, Timer: TimerTick, Delay: 1})
}

// receive dispatches a message.
func (n *Node) receive(q core.Rank, m core.Message, out []core.Effect) []core.Effect {
	switch m := m.(type) {
	case Events:
		return n.recvEvents(q, m, out)
	case Ack:
		if s := &n.sent[m.R%2]; s.R == m.R {
			s.Acked.Add(q)
		}
	case Readmit:
		return n.recvReadmit(q, m, out)
	case Decide:
		n.apply(m.K, m.C)
	case Wrap:
		return n.stepConsensus(core.Receive(q, m.M), out)
	}
	return out
}

// accepts reports whether information from q counts here.
//
// Ambiguity (AMBIGUOUS-2): "Note que a informação recebida por um processo
// ∉ DGRP é ignorada" reads either (a) a non-member ignores what it
// receives, or (b) what comes from a non-member is ignored (as in SELF,
// §3.3). We always apply (b); (a) is Config.IgnoreWhenOut.
func (n *Node) accepts(q core.Rank) bool {
	if !n.Recommended(q) {
		return false
	}
	return !n.cfg.IgnoreWhenOut || n.Recommended(n.self)
}

// merge is the syndrome exchange (§4.1.1: "Se syndrome_j[k] > syndrome_i[k]
// então o processo i atualiza a sua entrada local referente ao processo
// k").
//
// Ambiguity: the thesis does not say when syndromes travel; they travel
// with EVENTS (Events.Syndrome), so a process re-admitted after ignoring
// EVENTS catches up at the next round.
func (n *Node) merge(s []uint32) {
	for k, c := range s {
		n.raise(core.Rank(k), c)
	}
}

// raise sets k's counter to c if c is higher (the counters are merged by
// maximum); a process that becomes recommended again starts its ζ count
// afresh.
func (n *Node) raise(k core.Rank, c uint32) {
	if c > n.syndrome[k] {
		n.syndrome[k] = c
		n.zeta[k] = 0
	}
}

// tick is the test interval's timer: it tries the barrier (which starts
// the next round's tests) and retransmits the EVENTS not yet acknowledged.
func (n *Node) tick(out []core.Effect) []core.Effect {
	if n.round == 0 { // the first test interval: the processes start together
		n.round = 1
		return n.closeRound(out)
	}
	out = n.retransmit(out)
	if n.ph == phaseBarrier {
		out = n.barrier(out)
	}
	if n.ph == phaseBarrier || n.unacked() {
		out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: TimerTick, Delay: 1})
	}
	return out
}

// closeRound runs the round's tests (§4.1.1: "A cada intervalo de teste,
// um processo … executa testes nos outros processos de acordo com uma
// atribuição de testes"; all-to-all in the implementation), then
// broadcasts the round's detections (§4.1.2: one reliable broadcast per
// tester per round) and waits at the barrier.
//
// A test's TEST_REQ/TEST_REPLY exchange is abstracted into its outcome: it
// fails when its response time is over the threshold, an injected Slow
// (the environment's choice; a lost request or reply, a timeout, §4.1.1,
// is one too), and passes otherwise. For a recommended process a failed
// test is an event (spec §3.5 handle_result): its counter goes odd.
func (n *Node) closeRound(out []core.Effect) []core.Effect {
	var detected []Event
	var fails core.RankSet
	for j := range core.Rank(n.cfg.N) {
		if j == n.self {
			continue
		}
		ok := !n.takeSlow(j)
		if !ok {
			fails.Add(j)
		}
		out = n.judge(j, ok, &detected, out)
	}
	after := slices.Clone(n.syndrome) // the counters the round's detections set
	for _, e := range detected {
		after[e.K] = max(after[e.K], e.C)
	}
	n.fails[n.round%2] = roundSet{R: n.round, S: fails, C: after}
	syn := slices.Clone(n.syndrome)
	if n.is(MutantNoEventsBroadcast) {
		detected, syn = nil, nil
	}
	n.sent[n.round%2] = outgoing{R: n.round, List: detected, Syndrome: syn}
	for j := range core.Rank(n.cfg.N) {
		if j != n.self {
			out = append(out, core.Send(j, Events{R: n.round, List: slices.Clone(detected), Syndrome: slices.Clone(syn)}))
		}
	}
	n.ph = phaseBarrier
	return append(out, core.Effect{Kind: core.EffSetTimer, Timer: TimerTick, Delay: 1})
}

// takeSlow reports whether this round's test of j is an injected slow one.
// closeRound asks for the peers in ascending order and n.slow is sorted by
// round then peer, so the one to take is always first.
func (n *Node) takeSlow(j core.Rank) bool {
	for len(n.slow) > 0 && (n.slow[0].Round < n.round || n.slow[0].Round == n.round && n.slow[0].Peer < j) {
		n.slow = n.slow[1:]
	}
	if len(n.slow) > 0 && n.slow[0].Round == n.round && n.slow[0].Peer == j {
		n.slow = n.slow[1:]
		return true
	}
	return false
}

// judge is handle_result (spec §3.5) for one test of j.
//
// Ambiguity (AMBIGUOUS-3, ζ counting): "ζ testes consecutivos", "ζ rodadas
// de testes" and "ζ intervalos de testes consecutivos" all count here the
// consecutive passed tests of this tester, one per round. Fig. 4.12 shows
// process 6 asking for process 2's re-admission 9 times, so the count
// restarts after each request; a failed test restarts it too. Only a
// member asks (spec §3.5: "self ∈ DGRP").
func (n *Node) judge(j core.Rank, ok bool, detected *[]Event, out []core.Effect) []core.Effect {
	if n.Recommended(j) {
		if !ok {
			if n.is(MutantRemoveOnlyIfAll) { // reported, not yet removed
				n.report(n.round, n.self, j, n.syndrome[j]+1)
				*detected = append(*detected, Event{K: j, C: n.syndrome[j] + 1})
				return out
			}
			n.syndrome[j]++
			n.made[j] = max(n.made[j], n.syndrome[j])
			n.zeta[j] = 0
			*detected = append(*detected, Event{K: j, C: n.syndrome[j]})
		}
		return out
	}
	if !ok {
		n.zeta[j] = 0
		return out
	}
	n.zeta[j]++
	if int(n.zeta[j]) >= n.cfg.Zeta && n.Recommended(n.self) {
		n.zeta[j] = 0
		return n.request(j, out)
	}
	return out
}

// request is READMIT_REQ(k) to the leader, the lowest member (§4.1.2: "uma
// requisição de consenso é enviada ao líder").
func (n *Node) request(k core.Rank, out []core.Effect) []core.Effect {
	m := Readmit{K: k, C: n.syndrome[k]}
	n.requests = append(n.requests, Event(m))
	if n.is(MutantRequesterProposes) {
		return n.propose(k, m.C, out)
	}
	if l := Leader(n.View()); l != n.self {
		return append(out, core.Send(l, m))
	}
	return n.recvReadmit(n.self, m, out)
}

// recvReadmit is the leader's handling of READMIT_REQ(k): "Caso o líder
// receba mais de uma requisição para um mesmo processo k, somente uma é
// considerada" (§4.1.2).
//
// Ambiguity: the thesis does not say what a process that is not the
// leader in its own view does with a request; it drops it (the requester
// asks again after ζ more tests). A request about a counter this node has
// passed already (k re-admitted, or removed again) is stale and dropped;
// one about a newer counter is diagnosis information and merged.
func (n *Node) recvReadmit(q core.Rank, m Readmit, out []core.Effect) []core.Effect {
	if q != n.self && n.accepts(q) {
		n.raise(m.K, m.C)
	}
	switch {
	case Leader(n.View()) != n.self:
		return out
	case n.is(MutantKeepDuplicates): // remembers no request: proposes each one
	case n.Recommended(m.K), n.syndrome[m.K] != m.C, n.pending.Has(m.K):
		return out
	}
	return n.propose(m.K, m.C, out)
}

// propose starts the consensus on "readmit k at counter c".
//
// Ambiguity (AMBIGUOUS-4, what the consensus decides): §4.1.1 says the
// group composition, §4.1.2 a vote on k by majority. We decide one entry
// of the group's log of changes, "readmit k@c", in a Paxos instance whose
// acceptors are all N processes (Paxos of §2.1.2 has a fixed set of
// acceptors; a non-recommended process is slow, not crashed): a decision
// needs a majority of the N. The counter c makes the decision idempotent
// (AMBIGUOUS-6, see apply).
func (n *Node) propose(k core.Rank, c uint32, out []core.Effect) []core.Effect {
	n.pending.Add(k)
	n.proposals = append(n.proposals, Proposal{K: k, C: c, Leader: Leader(n.View())})
	if n.is(MutantReadmitWithoutConsensus) {
		for j := range core.Rank(n.cfg.N) {
			if j != n.self {
				out = append(out, core.Send(j, Decide{K: k, C: c}))
			}
		}
		n.apply(k, c)
		return out
	}
	return n.stepConsensus(core.Call(n.cfg.Consensus.Propose(Command(k, c))), out)
}

// Command is the consensus command "readmit k at counter c".
func Command(k core.Rank, c uint32) string { return fmt.Sprintf("readmit %v@%d", k, c) }

// ParseCommand reads a Command.
func ParseCommand(s string) (core.Rank, uint32, bool) {
	var k, c uint32
	if _, err := fmt.Sscanf(s, "readmit p%d@%d", &k, &c); err != nil {
		return 0, 0, false
	}
	return core.Rank(k), c, true
}

// apply is a re-admission decided (§4.1.2: "todos os processos incrementam
// o valor referente ao processo k").
//
// Ambiguity (AMBIGUOUS-6): incrementing may count twice at a process that
// already merged the newer counter. The decision carries the counter c it
// is about: a process whose counter for k is at most c sets it to c+1
// (even: recommended); one past c ignores it. MutantDoubleIncrement
// increments whatever the counter.
func (n *Node) apply(k core.Rank, c uint32) {
	n.pending.Remove(k)
	if n.is(MutantDoubleIncrement) {
		n.syndrome[k] = max(n.syndrome[k], c) + 1
		n.zeta[k] = 0
		n.admitted = append(n.admitted, Event{K: k, C: c})
		return
	}
	if n.syndrome[k] > c {
		return
	}
	n.syndrome[k] = c + 1
	n.zeta[k] = 0
	n.admitted = append(n.admitted, Event{K: k, C: c})
}

// stepConsensus steps the embedded consensus machine and carries out its
// effects: its messages wrapped, its timer as TimerConsensus, its
// decisions applied.
func (n *Node) stepConsensus(ev core.Event, out []core.Effect) []core.Effect {
	effs, err := n.cons.Step(ev, nil)
	if err != nil {
		return out // an event the consensus refuses (a duplicate, a stale timer) changes nothing
	}
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			out = append(out, core.Send(e.To, Wrap{M: e.Msg}))
		case core.EffSetTimer:
			out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: TimerConsensus, Delay: e.Delay})
		case core.EffDecide:
			if data, ok := n.cfg.Consensus.Decided(e.Value); ok {
				if k, c, ok := ParseCommand(data); ok && k.Valid(n.cfg.N) {
					n.apply(k, c)
				}
			}
		}
	}
	return out
}

// recvEvents is RB_DELIVER(EVENTS(list)) (spec §3.5): the counters are
// merged by maximum (§4.1.1), so a process reported non-recommended by a
// member leaves this view; the sender is acknowledged and counted for the
// barrier of its round.
func (n *Node) recvEvents(q core.Rank, m Events, out []core.Effect) []core.Effect {
	if n.cfg.Lossy {
		out = append(out, core.Send(q, Ack{R: m.R}))
	}
	g := &n.got[m.R%2]
	switch {
	case g.R == m.R:
		g.S.Add(q)
	case g.R < m.R:
		*g = roundSet{R: m.R}
		g.S.Add(q)
	}
	if !n.accepts(q) {
		return out
	}
	if n.is(MutantRemoveOnlyIfAll) {
		for _, e := range m.List {
			n.report(m.R, q, e.K, e.C)
		}
		return out
	}
	for _, e := range m.List {
		n.raise(e.K, e.C)
	}
	n.merge(m.Syndrome)
	return out
}

// barrier is the end of the computation round (§4.1: "Assim que os
// processos atingem a barreira os mesmos verificam a composição do DGRP
// para reatribuir as tarefas"): once every other process's EVENTS of the
// round arrived, the view is read, and the next test round begins.
//
// Ambiguity: the thesis runs diagnosis and computation concurrently and
// puts no diagnosis step in the barrier. We end a computation round at
// every test round, the finest granularity, and make the barrier wait for
// the round's EVENTS from every process, as P-DGRP-2 needs ("removido do
// DGRP antes da próxima rodada de computação"). The views are not agreed
// on (AMBIGUOUS-5): the barrier only waits.
func (n *Node) barrier(out []core.Effect) []core.Effect {
	g := n.got[n.round%2]
	for j := range core.Rank(n.cfg.N) {
		if j != n.self && (g.R != n.round || !g.S.Has(j)) {
			return out
		}
	}
	if n.is(MutantRemoveOnlyIfAll) {
		n.removeIfAll()
	}
	n.views[n.round%2] = roundSet{R: n.round, S: n.View(), C: slices.Clone(n.syndrome)}
	if int(n.round) >= n.cfg.Rounds {
		n.ph = phaseDone
		return out
	}
	n.round++
	return n.closeRound(out)
}

// retransmit re-sends each EVENTS to the processes that have not
// acknowledged it: the reliable broadcast over unreliable channels
// (§4.1.1: "Os canais de comunicação não são confiáveis"; the broadcast
// algorithm is not given).
func (n *Node) retransmit(out []core.Effect) []core.Effect {
	if !n.cfg.Lossy {
		return out
	}
	for i := range n.sent {
		s := &n.sent[i]
		if s.R == 0 {
			continue
		}
		for j := range core.Rank(n.cfg.N) {
			if j != n.self && !s.Acked.Has(j) {
				out = append(out, core.Send(j, Events{R: s.R, List: slices.Clone(s.List), Syndrome: slices.Clone(s.Syndrome)}))
			}
		}
	}
	return out
}

// unacked reports whether an EVENTS waits for an acknowledgement.
func (n *Node) unacked() bool {
	if !n.cfg.Lossy {
		return false
	}
	for _, s := range n.sent {
		if s.R != 0 && s.Acked.Len() < n.cfg.N-1 {
			return true
		}
	}
	return false
}

// report records, under MutantRemoveOnlyIfAll, that tester q found k
// non-recommended in round r with counter c.
func (n *Node) report(r uint32, q, k core.Rank, c uint32) {
	t := &n.reports[r%2]
	if t.R != r {
		*t = report{R: r, By: make([]core.RankSet, n.cfg.N), Cnt: make([]uint32, n.cfg.N)}
	}
	t.By[k].Add(q)
	t.Cnt[k] = max(t.Cnt[k], c)
}

// removeIfAll is MutantRemoveOnlyIfAll's removal at the barrier: k leaves
// only if every other member reported it.
func (n *Node) removeIfAll() {
	t := n.reports[n.round%2]
	if t.R != n.round {
		return
	}
	view := n.View()
	for k := range core.Rank(n.cfg.N) {
		all := true
		view.Each(func(j core.Rank) {
			if j != k && !t.By[k].Has(j) {
				all = false
			}
		})
		if all && t.Cnt[k] > n.syndrome[k] {
			n.syndrome[k] = t.Cnt[k]
			n.made[k] = max(n.made[k], t.Cnt[k])
			n.zeta[k] = 0
		}
	}
}
