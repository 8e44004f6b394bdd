package paxos

import (
	"cmp"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// The rules of Paxos as the thesis's §2.1.2 states them, with Lamport's
// Paxos Made Simple (PMS) for what the thesis leaves to it. Each rule quotes
// its source; each choice the sources leave open is marked "Ambiguity:".

// propose is the call propose(v) at a proposer (§2.1.2: "O proposer P1
// inicia o consenso ao receber um valor v através de uma requisição
// propose"; with a coordinator, "proposers submetem valores ao
// coordenador, que então executa a primeira e a segunda fase do
// protocolo"). The command waits in pending until it is chosen.
//
// Ambiguity: the thesis does not say how the proposer learns that its value
// was chosen; Fig. 5.2's flow has the coordinator answer it ("R0 responde ao
// processo P0"). A proposer that is a learner returns when it decides the
// command; one that is not returns on the coordinator's DECIDED. The call
// returns core.Return(i, v) with i the instance that chose it.
func (n *Node) propose(v Command, out []core.Effect) []core.Effect {
	n.pending = append(n.pending, v)
	return n.submit(v, out)
}

// submit hands v to the coordinator: to itself when it coordinates (or is
// the coordinator of its view and has not started: it starts phase 1
// now), else as REQUEST(v).
func (n *Node) submit(v Command, out []core.Effect) []core.Effect {
	switch {
	case n.coord != nil:
		return n.coordRequest(v, out)
	case n.leader == n.self:
		return n.startPhase1(n.carry(), out)
	case n.leader != core.NoRank:
		return append(out, core.Send(n.leader, Request{Cmd: v}))
	}
	return out
}

// lead is the embedder's call naming this proposer coordinator: phase 1
// at once. Made at the initial coordinator before any proposal, it is the
// thesis's optimisation (§2.1.2: "Um coordenador pode otimizar o
// desempenho executando a primeira fase do protocolo para um lote de
// instâncias de consenso antes de receber qualquer valor"), the batch
// being every instance from the first the coordinator has not decided.
// Made at another proposer it is a takeover, or, while the coordinator
// runs, the competition of Fig. 2.1.
func (n *Node) lead(out []core.Effect) []core.Effect {
	return n.startPhase1(n.carry(), out)
}

// carry is what a proposer that starts phase 1 again must still get
// chosen: its queue, the commands of its unchosen slots and its own
// pending proposals.
func (n *Node) carry() []Command {
	cs := slices.Clone(n.pending)
	add := func(v Command) {
		if !v.IsNoop() && !slices.Contains(cs, v) {
			cs = append(cs, v)
		}
	}
	if c := n.coord; c != nil {
		for _, v := range c.queue {
			add(v)
		}
		for _, s := range c.slots {
			if !s.chosen {
				add(s.v)
			}
		}
	}
	return cs
}

// startPhase1 is phase 1 (§2.1.2: "durante a primeira fase P1 seleciona um
// número único de rodada e o envia em uma solicitação prepare aos
// acceptors"), for the batch of every instance ≥ from. The queue starts
// with carried commands.
//
// Ambiguity: the thesis's "número único de rodada" is ballot round·P + k +
// 1 for the k-th proposer (Config.Owner), the smallest above every ballot
// the node has seen, promised or tried. The ballot tried is on stable
// storage (PMS: "a proposer … must remember the highest-numbered proposal
// it has tried to issue"): a proposer that restarted and used a ballot
// again could propose two values at one ballot.
//
// Ambiguity: the batch. The coordinator prepares every instance from the
// first it has not decided as a learner (from = len(log)), 0 when it is
// not a learner. Instances below are decided and it holds their values for
// the learners' catch-up.
func (n *Node) startPhase1(queue []Command, out []core.Effect) []core.Effect {
	b := n.cfg.ballotAbove(max(n.maxSeen, n.promised, n.tried), n.r.pi)
	n.maxSeen, n.tried = b, b
	from := uint64(0)
	if n.r.learner {
		from = uint64(len(n.log))
	}
	n.leader = n.self
	n.coord = &coordinator{b: b, from: from, preparing: true, acks: make([]uint64, len(n.cfg.Learners))}
	for _, v := range queue {
		if !slices.Contains(n.coord.queue, v) {
			n.coord.queue = append(n.coord.queue, v)
		}
	}
	for _, a := range n.cfg.Acceptors {
		out = append(out, core.Send(a, Prepare{B: b, From: from}))
	}
	return out
}

// recvRequest is REQUEST(v) at a proposer.
//
// Ambiguity: a request that reaches a proposer that does not coordinate
// (its sender's view is stale) is forwarded once to the coordinator of the
// receiver's view, when the sender is the command's origin and that view
// names neither of them. Otherwise the receiver takes the request as a
// sign that it should coordinate and starts phase 1: a forwarded request is
// never forwarded again, so requests never loop, and views that disagree
// after coordinators yielded to each other's ballots (recvNack) converge on
// the receiver, whose higher ballot the others then yield to.
func (n *Node) recvRequest(q core.Rank, m Request, out []core.Effect) []core.Effect {
	if n.relabelsRequests() { // mutant hook
		m.Cmd.Origin = n.self
	}
	switch {
	case n.coord != nil:
		return n.coordRequest(m.Cmd, out)
	case q == m.Cmd.Origin && n.leader != n.self && n.leader != q && n.leader != core.NoRank:
		return append(out, core.Send(n.leader, Request{Cmd: m.Cmd}))
	}
	return n.startPhase1(append(n.carry(), m.Cmd), out)
}

// coordRequest is the coordinator's handling of command v: a new instance
// in phase 2 (§2.1.2: with phase 1 pre-executed, "um valor pode ser
// escolhido em três passos de comunicação"), or the queue while phase 1
// runs.
//
// Ambiguity: a command the coordinator already placed is not placed again
// (a proposer retransmits its request until it returns); if it is chosen,
// its origin is told with DECIDED. A command may still be chosen twice
// after coordinator changes (placed by a coordinator that crashed before
// any acceptor of the next one's quorum voted for it, then placed again on
// retransmission, then recovered from the old vote by a third
// coordinator): instances stay consistent, and the origin returns once.
func (n *Node) coordRequest(v Command, out []core.Effect) []core.Effect {
	c := n.coord
	if i, chosen, ok := n.placed(v); ok {
		if chosen {
			out = n.tellOrigin(i, v, true, out)
		}
		return out
	}
	if c.preparing {
		if !slices.Contains(c.queue, v) {
			c.queue = append(c.queue, v)
		}
		return out
	}
	c.slots = append(c.slots, slot{v: v})
	return n.sendAccept(c.from+uint64(len(c.slots)-1), out)
}

// placed finds v among the coordinator's decided instances and slots.
func (n *Node) placed(v Command) (i uint64, chosen, ok bool) {
	if k := slices.Index(n.log, v); k >= 0 {
		return uint64(k), true, true
	}
	c := n.coord
	for k, s := range c.slots {
		if s.v == v {
			return c.from + uint64(k), s.chosen, true
		}
	}
	return 0, false, false
}

// recvPrepare is phase 1 at an acceptor (§2.1.2: "Ao receber uma
// solicitação prepare com um número de rodada maior que qualquer rodada que
// o acceptor tenha recebido previamente, o acceptor responde ao proposer
// prometendo que rejeitará qualquer requisição futura com números de
// rodada menores. Se o acceptor já aceitou um valor para instância atual
// …, ele irá retornar esse valor ao proposer juntamente com o número de
// rodada recebido quando o valor foi aceito"). One PROMISE answers for the
// whole batch: the votes of every instance ≥ from.
//
// Ambiguity: "maior que" (greater than) read as ≥ for the ballot already
// promised, so that a retransmitted PREPARE is answered again (PMS: an
// acceptor "can always respond to a prepare request"; a repeated promise
// promises nothing new).
//
// Ambiguity: the thesis has the acceptor silently ignore a lower ballot;
// it answers NACK(b, promised) (PMS: "the acceptor … should probably inform
// the proposer, who should then abandon its attempt"), so that a
// superseded coordinator learns it at once.
func (n *Node) recvPrepare(q core.Rank, m Prepare, out []core.Effect) []core.Effect {
	n.see(m.B)
	if m.B < n.promised {
		return append(out, core.Send(q, Nack{B: m.B, Promised: n.promised}))
	}
	n.promised = m.B
	i, _ := slices.BinarySearchFunc(n.accepted, m.From, func(v Vote, i uint64) int { return cmp.Compare(v.Inst, i) })
	return append(out, core.Send(q, Promise{B: m.B, From: m.From, Votes: slices.Clone(n.accepted[i:])}))
}

// recvPromise counts a promise for the coordinator's ballot (§2.1.2:
// "Quando o proposer recebe respostas de um quórum, ou seja, uma maioria de
// acceptors, o algoritmo segue para a segunda fase"), keeping for each
// instance the vote of the highest ballot reported.
func (n *Node) recvPromise(q core.Rank, m Promise, out []core.Effect) []core.Effect {
	n.see(m.B)
	c := n.coord
	if c == nil || !c.preparing || m.B != c.b || m.From != c.from || c.promises.Has(q) {
		return out
	}
	c.promises.Add(q)
	for _, v := range m.Votes {
		i, ok := slices.BinarySearchFunc(c.reported, v.Inst, func(r Vote, i uint64) int { return cmp.Compare(r.Inst, i) })
		switch {
		case !ok:
			c.reported = slices.Insert(c.reported, i, v)
		case v.B > c.reported[i].B:
			c.reported[i] = v
		}
	}
	if c.promises.Len() < n.cfg.Quorum() {
		return out
	}
	return n.phase2(out)
}

// phase2 starts phase 2 once a quorum promised (§2.1.2: "se nenhum acceptor
// no quórum de respostas aceitou um valor, o proposer pode selecionar um
// novo valor para a instância … No entanto, se qualquer um dos acceptors
// retornou um valor na primeira fase, o proposer escolhe o valor com o
// maior número de rodada. O proposer então envia uma solicitação accept com
// o número de rodada usado na primeira fase e o valor escolhido
// (v-selected) para os acceptors").
//
// Ambiguity: for a batch, the instances from `from` up to the highest one
// reported get the reported value of the highest ballot, and those with no
// vote in the quorum get the no-op (PMS: the leader "fill[s] the gaps …
// by proposing a special 'no-op' command"), so that the learners' in-order
// delivery does not stop at a gap; the queued commands take the next
// instances, each one once.
func (n *Node) phase2(out []core.Effect) []core.Effect {
	c := n.coord
	c.preparing = false
	c.promises = core.RankSet{}
	if !n.ignoresPromisedValues() { // mutant hook
		for _, v := range c.reported {
			for c.from+uint64(len(c.slots)) < v.Inst {
				c.slots = append(c.slots, slot{v: Noop})
			}
			c.slots = append(c.slots, slot{v: v.V})
		}
	}
	c.reported = nil
	queue := c.queue
	c.queue = nil
	for _, v := range queue {
		if _, _, ok := n.placed(v); !ok {
			c.slots = append(c.slots, slot{v: v})
		}
	}
	for k := range c.slots {
		out = n.sendAccept(c.from+uint64(k), out)
	}
	return out
}

// sendAccept sends ACCEPT for instance i to every acceptor.
func (n *Node) sendAccept(i uint64, out []core.Effect) []core.Effect {
	c := n.coord
	m := Accept{B: c.b, Inst: i, V: c.slots[i-c.from].v}
	for _, a := range n.cfg.Acceptors {
		out = append(out, core.Send(a, m))
	}
	if n.decidesBeforeChosen() && n.r.learner { // mutant hook
		out = n.learnChosen(i, []Command{m.V}, out)
	}
	return out
}

// recvAccept is phase 2 at an acceptor (§2.1.2: "os acceptors enviam
// mensagens de confirmação (acceptResp) ao proposer e aos learners, a menos
// que os acceptors já tenham confirmado outra solicitação com um número de
// rodada maior"). The vote goes to stable storage before the answer.
//
// Ambiguity: "confirmado outra solicitação com um número de rodada maior"
// read as PMS's rule, "unless it has already responded to a prepare
// request having a number greater than n": the promise, not only an
// earlier accept, bars a lower ballot, which answers NACK.
func (n *Node) recvAccept(q core.Rank, m Accept, out []core.Effect) []core.Effect {
	n.see(m.B)
	if m.B < n.promised && !n.acceptsLowerBallot() { // mutant hook
		return append(out, core.Send(q, Nack{B: m.B, Promised: n.promised}))
	}
	n.promised = max(n.promised, m.B)
	v := Vote{Inst: m.Inst, B: m.B, V: m.V}
	if i, ok := slices.BinarySearchFunc(n.accepted, m.Inst, func(v Vote, i uint64) int { return cmp.Compare(v.Inst, i) }); ok {
		n.accepted[i] = v
	} else {
		n.accepted = slices.Insert(n.accepted, i, v)
	}
	to := core.RankSet{}
	to.Add(q)
	for _, l := range n.cfg.Learners {
		to.Add(l)
	}
	to.Each(func(r core.Rank) { out = append(out, core.Send(r, Accepted(m))) })
	return out
}

// recvAccepted counts a vote: at the coordinator for its own ballot
// (§2.1.2: "Quando um quórum de acceptors aceita o valor, alcança-se o
// consenso"), and at a learner (learnVote).
func (n *Node) recvAccepted(q core.Rank, m Accepted, out []core.Effect) []core.Effect {
	n.see(m.B)
	if c := n.coord; c != nil && !c.preparing && m.B == c.b && m.Inst >= c.from && m.Inst-c.from < uint64(len(c.slots)) {
		s := &c.slots[m.Inst-c.from]
		if s.v == m.V && !s.voters.Has(q) {
			s.voters.Add(q)
			if !s.chosen && s.voters.Len() >= n.cfg.Quorum() {
				s.chosen = true
				out = n.tellOrigin(m.Inst, s.v, false, out)
			}
		}
	}
	if n.r.learner {
		out = n.learnVote(q, m, out)
	}
	return out
}

// tellOrigin tells the proposer of v that it was chosen in instance i
// (Fig. 5.2: "o consenso é finalizado e R0 responde ao processo P0"): the
// coordinator itself returns (when it is a learner, on delivering v); a
// proposer that is a learner learns it from the acceptors, unless force
// (it asked again).
func (n *Node) tellOrigin(i uint64, v Command, force bool, out []core.Effect) []core.Effect {
	switch {
	case v.IsNoop():
	case v.Origin == n.self:
		if !n.r.learner { // a learner returns when it delivers v
			out = n.returned(i, v, out)
		}
	case force || !n.cfg.isLearner(v.Origin):
		out = append(out, core.Send(v.Origin, Decided{From: i, Values: []Command{v}}))
	}
	return out
}

// returned completes the pending proposal v, chosen in instance i.
func (n *Node) returned(i uint64, v Command, out []core.Effect) []core.Effect {
	k := slices.Index(n.pending, v)
	if k < 0 {
		return out
	}
	n.pending = slices.Delete(n.pending, k, k+1)
	return append(out, core.Return(i, v))
}

// learnVote is the learner's rule (§2.1.2: "os learners aprendem o valor
// decidido"; PMS: "a learner must find out that a proposal has been
// accepted by a majority of acceptors"): a value is chosen when a quorum
// voted for it at one ballot. Votes of a ballot lower than one seen are
// dropped: a value chosen at the lower ballot is the one the higher ballot
// carries.
func (n *Node) learnVote(q core.Rank, m Accepted, out []core.Effect) []core.Effect {
	if m.Inst < uint64(len(n.log)) {
		return out
	}
	t := n.tallyAt(m.Inst)
	switch {
	case t.chosen || m.B < t.b:
		return out
	case m.B > t.b:
		t.b, t.v, t.voters = m.B, m.V, core.RankSet{}
	}
	t.voters.Add(q)
	if t.voters.Len() >= n.learnQuorum() { // mutant hook
		t.chosen = true
	}
	return n.deliver(out)
}

// tallyAt returns the learner's tally of instance i (≥ len(log)),
// creating it. The pointer is valid until the next tallyAt.
func (n *Node) tallyAt(i uint64) *tally {
	k, ok := slices.BinarySearchFunc(n.tallies, i, func(t tally, i uint64) int { return cmp.Compare(t.inst, i) })
	if !ok {
		n.tallies = slices.Insert(n.tallies, k, tally{inst: i})
	}
	return &n.tallies[k]
}

// deliver hands the chosen instances to the application in instance order
// (§5.1.3: "a i-ésima instância de consenso decide sobre o i-ésimo
// comando"), each as core.Decide(i, v) onto the stable log, and returns a
// proposal of this node so decided.
func (n *Node) deliver(out []core.Effect) []core.Effect {
	for len(n.tallies) > 0 && (n.tallies[0].inst == uint64(len(n.log)) || n.deliversOutOfOrder()) && n.tallies[0].chosen { // mutant hook
		i, v := n.tallies[0].inst, n.tallies[0].v
		n.tallies = slices.Delete(n.tallies, 0, 1)
		n.log = append(n.log, v)
		out = append(out, core.Decide(i, v))
		if v.Origin == n.self {
			out = n.returned(i, v, out)
		}
	}
	return out
}

// recvNack is the coordinator's reaction to a rejection of its ballot.
//
// Ambiguity: the thesis says only that "se o coordenador falha, outro
// processo assume a sua função". A coordinator whose ballot was rejected
// for the ballot of another proposer that it does not suspect yields to it
// (the new owner coordinates: this node's requests go there); if it
// suspects that proposer, or the ballot is its own from before a restart,
// it runs phase 1 again above it. Only a Lead call makes two live
// proposers compete, as P0 and P1 do in Fig. 2.1.
func (n *Node) recvNack(q core.Rank, m Nack, out []core.Effect) []core.Effect {
	n.see(m.Promised)
	c := n.coord
	if c == nil || m.B != c.b {
		return out
	}
	owner := n.cfg.Owner(m.Promised)
	if owner == n.self || n.suspected.Has(owner) {
		return n.startPhase1(n.carry(), out)
	}
	carried := n.carry()
	n.coord = nil
	n.leader = owner
	for _, v := range carried {
		out = append(out, core.Send(owner, Request{Cmd: v}))
	}
	return out
}

// recvDecided is DECIDED(from, values) from the coordinator: decisions the
// learner missed (or a proposer's answer). A learner acknowledges with
// LEARNED(next).
//
// Ambiguity: PMS leaves lost messages to the learners to "the leader"
// re-sending; the thesis does not discuss them. The coordinator keeps, per
// learner, the instances it is known to have decided, and sends it what
// it lacks on each retransmission timeout; the learner answers LEARNED.
func (n *Node) recvDecided(q core.Rank, m Decided, out []core.Effect) []core.Effect {
	if !n.r.learner {
		for k, v := range m.Values {
			if v.Origin == n.self {
				out = n.returned(m.From+uint64(k), v, out)
			}
		}
		return out
	}
	out = n.learnChosen(m.From, m.Values, out)
	return append(out, core.Send(q, Learned{Next: uint64(len(n.log))}))
}

// learnChosen records that values[k] was chosen in instance from+k.
func (n *Node) learnChosen(from uint64, values []Command, out []core.Effect) []core.Effect {
	for k, v := range values {
		i := from + uint64(k)
		if i < uint64(len(n.log)) {
			continue
		}
		if t := n.tallyAt(i); !t.chosen {
			*t = tally{inst: i, v: v, chosen: true}
		}
	}
	return n.deliver(out)
}

// recvLearned records a learner's acknowledgement and, if the learner
// still lacks chosen instances, answers with them at once. This is how a
// learner the coordinator suspects (one that restarted) catches up: its
// LEARNED, sent in answer to the DECIDED that answers its proposer's
// retransmitted request, proves it alive.
func (n *Node) recvLearned(q core.Rank, m Learned, out []core.Effect) []core.Effect {
	c := n.coord
	if c == nil {
		return out
	}
	i, _ := slices.BinarySearch(n.cfg.Learners, q)
	c.acks[i] = max(c.acks[i], m.Next)
	if m.Next < n.chosenPrefix() {
		out = append(out, core.Send(q, Decided{From: m.Next, Values: n.chosenValues(m.Next)}))
	}
	return out
}

// suspect is a failure report for q (core.Suspect).
//
// Ambiguity: the thesis says "Se o coordenador falha, outro processo assume
// a sua função" without saying which. Succession is by rank: when the
// coordinator of its view is suspected, a node's view becomes the first
// proposer of Config.Proposers it does not suspect, which under a perfect
// detector is the same live proposer at every node. A proposer that finds
// itself next takes over (phase 1 with a higher ballot); any other
// proposer re-sends its pending requests to the new coordinator. An
// embedder that elects otherwise calls Lead.
func (n *Node) suspect(q core.Rank, out []core.Effect) []core.Effect {
	n.suspected.Add(q)
	if q != n.leader {
		return out
	}
	n.leader = n.successor()
	if !n.r.proposer {
		return out
	}
	if n.leader == n.self {
		return n.startPhase1(n.carry(), out)
	}
	if n.leader != core.NoRank {
		for _, v := range n.pending {
			out = append(out, core.Send(n.leader, Request{Cmd: v}))
		}
	}
	return out
}

// successor is the first proposer of Config.Proposers not suspected (the
// node itself, a proposer, never is); NoRank if all are.
func (n *Node) successor() core.Rank {
	for _, p := range n.cfg.Proposers {
		if p == n.self || !n.suspected.Has(p) {
			return p
		}
	}
	return core.NoRank
}

// retransmit is the timeout (Ambiguity: the thesis assumes lossy channels,
// "mensagens podem ser perdidas", without saying how progress survives a
// loss; PMS relies on timeouts to elect a leader and leaves retransmission
// to the implementation). On TimerRetransmit a proposer re-sends its
// pending requests; the coordinator re-sends PREPARE to the acceptors that
// have not promised, ACCEPT to those that have not voted for an unchosen
// instance, and DECIDED to each live learner not known to have the chosen
// prefix (the coordinator, when a learner itself, learns it in place).
// Every answer to a re-sent message is the answer to the original, so a
// retransmission changes nothing but the loss.
func (n *Node) retransmit(out []core.Effect) []core.Effect {
	if c := n.coord; c == nil && len(n.pending) > 0 {
		switch n.leader {
		case core.NoRank:
		case n.self:
			out = n.startPhase1(n.carry(), out)
		default:
			for _, v := range n.pending {
				out = append(out, core.Send(n.leader, Request{Cmd: v}))
			}
		}
	}
	c := n.coord
	if c == nil {
		return out
	}
	if c.preparing {
		for _, a := range n.cfg.Acceptors {
			if !c.promises.Has(a) {
				out = append(out, core.Send(a, Prepare{B: c.b, From: c.from}))
			}
		}
		return out
	}
	for k, s := range c.slots {
		if s.chosen {
			continue
		}
		m := Accept{B: c.b, Inst: c.from + uint64(k), V: s.v}
		for _, a := range n.cfg.Acceptors {
			if !s.voters.Has(a) {
				out = append(out, core.Send(a, m))
			}
		}
	}
	for li, l := range n.cfg.Learners {
		if !n.behind(l) {
			continue
		}
		if l == n.self {
			out = n.learnChosen(uint64(len(n.log)), n.chosenValues(uint64(len(n.log))), out)
			continue
		}
		out = append(out, core.Send(l, Decided{From: c.acks[li], Values: n.chosenValues(c.acks[li])}))
	}
	return out
}

// chosenPrefix is the number of instances from 0 the coordinator knows
// chosen: its decided log, then its consecutive chosen slots.
func (n *Node) chosenPrefix() uint64 {
	c := n.coord
	p := c.from
	for _, s := range c.slots {
		if !s.chosen {
			break
		}
		p++
	}
	return max(p, uint64(len(n.log)))
}

// chosenValues lists the chosen values from instance i on, at most
// MaxBatch of them.
func (n *Node) chosenValues(i uint64) []Command {
	c := n.coord
	var vs []Command
	for p := n.chosenPrefix(); i < p && len(vs) < MaxBatch; i++ {
		if i < uint64(len(n.log)) {
			vs = append(vs, n.log[i])
		} else {
			vs = append(vs, c.slots[i-c.from].v)
		}
	}
	return vs
}

// see records a ballot seen in a message.
func (n *Node) see(b Ballot) { n.maxSeen = max(n.maxSeen, b) }
