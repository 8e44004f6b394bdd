package abcast

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// Sequencer crash: the appendix's members "permanecem estáveis durante a
// execução da difusão atômica" and it says nothing of a sequencer or coordinator that leaves.
// Choice: the sequencer and the coordinator are fixed (rank 0), as the
// appendix's "o primeiro nó do núcleo estável" names them, and nothing
// takes over. A crash of rank 0 stops ordering: messages it had not
// numbered or decided are never delivered (validity fails); agreement,
// integrity and total order still hold, since rank 0 sends a number or a
// decision to every member in one step and channels deliver a crashed
// sender's messages. `ftcheck check abcast --crash-sequencer` checks both
// (models/abcast, TestCrashSequencer and TestCrashSequencerSafety). Takeover would be a new sequencer elected from the
// DGRP view, with a consensus on the numbers already given: a different
// protocol.

// broadcast is a member's own message id.
//
// Consensus: "Cada processo p_i do núcleo estável envia sua mensagem aos
// demais processos do núcleo estável. As mensagens recebidas … são
// armazenadas em um vetor de mensagens recebidas" (the member's own
// message included).
// UB: "um processo envia sua mensagem ao sequenciador".
// BB: "o processo envia sua mensagem a todos os processos".
//
// Ambiguity: BB's sequencer broadcasting its own message. Its MSG carries
// its number, so it sends no SEQ for it: the appendix's count, in which the
// sequencer sends numbers only for the other members' messages.
func (n *Node) broadcast(id ID, out []core.Effect) ([]core.Effect, error) {
	n.have.add(id)
	switch n.cfg.Variant {
	case UB:
		if n.self == Sequencer {
			return n.sequence(id, out), nil
		}
		return append(out, core.Send(Sequencer, Msg{ID: id, Num: NoNum})), nil
	case BB:
		num := int64(NoNum)
		if n.self == Sequencer {
			num = int64(n.assign(id))
			n.learn(uint64(num), id)
		}
		out = n.toOthers(Msg{ID: id, Num: num}, out)
		if n.is(MutantDeliverOnPayload) {
			out = n.deliver(id, out)
		}
		return n.deliverReady(out), nil
	}
	out = n.toOthers(Msg{ID: id, Num: NoNum}, out)
	return n.arrived(id, out)
}

// toOthers sends m to every member but this one.
func (n *Node) toOthers(m core.Message, out []core.Effect) []core.Effect {
	for r := range core.Rank(n.cfg.N) {
		if r != n.self {
			out = append(out, core.Send(r, m))
		}
	}
	return out
}

// recvMsg is MSG(id, num) at a member.
func (n *Node) recvMsg(m Msg, out []core.Effect) ([]core.Effect, error) {
	switch n.cfg.Variant {
	case UB:
		if n.self != Sequencer {
			return out, fmt.Errorf("abcast: %v: UB MSG at a member that is not the sequencer", n.self)
		}
		n.have.add(m.ID)
		return n.sequence(m.ID, out), nil
	case BB:
		n.have.add(m.ID)
		if m.Num != NoNum {
			n.learn(uint64(m.Num), m.ID)
		}
		if n.self == Sequencer && !n.numbered.has(m.ID) {
			// "O sequenciador, ao receber a mensagem, envia aos demais
			// apenas o número de sequência daquela mensagem e não a
			// mensagem em si": to every member but itself, the origin
			// included.
			num := n.assign(m.ID)
			n.learn(num, m.ID)
			out = n.toOthers(Seq{Num: num, ID: m.ID}, out)
		}
		if n.is(MutantDeliverOnPayload) {
			out = n.deliver(m.ID, out)
		}
		return n.deliverReady(out), nil
	}
	if !n.keepsVector() || !n.have.add(m.ID) {
		return out, nil
	}
	return n.arrived(m.ID, out)
}

// keepsVector reports whether this member keeps the vector of received
// messages (Consensus): "As mensagens recebidas … são armazenadas em um
// vetor de mensagens recebidas".
//
// Ambiguity: every member keeps the vector, read literally. Only the
// coordinator reads it (it builds the batches, maybePropose); a decision
// carries its batch, so another member delivers without it. A member other
// than the coordinator keeps none, and a MSG is a no-op there (Absorbs),
// except under the two mutants that read it: MutantDeliverBeforeDecision
// and MutantBatchArrivalOrder. This changes no member's sends or
// deliveries, only the states that differ in a vector nothing reads
// (TestAbsorbs; models/all TestDropAbsorbedSoundness compares the searches
// that drop such MSGs with the plain ones).
func (n *Node) keepsVector() bool {
	return n.self == Sequencer || n.is(MutantDeliverBeforeDecision) || n.is(MutantBatchArrivalOrder)
}

// Absorbs reports whether receiving msg from `from` is a step with no
// effect that leaves the member as it is, now and in every state it may
// reach (checker/env's Absorber): a valid MSG at a consensus member that
// keeps no vector (keepsVector).
func (n *Node) Absorbs(from core.Rank, msg core.Message) bool {
	m, ok := msg.(Msg)
	return ok && n.cfg.Variant == ConsensusBased && !n.keepsVector() && from.Valid(n.cfg.N) && n.checkMessage(m) == nil
}

// sequence is the UB sequencer's rule: the sequencer "insere na mensagem
// uma etiqueta com seu número de sequência e a envia aos demais processos".
//
// Ambiguity: the origin of a message must learn its number to deliver its
// own message in the total order, but the appendix's count (s − 1
// messages per broadcast, UB = s(s − 1)) sends it nothing. The sequencer
// sends the origin a SEQ without the payload (an acknowledgement with the
// number): one message more per broadcast of a member other than the
// sequencer, s − 1 more per round (docs/abcast.md).
func (n *Node) sequence(id ID, out []core.Effect) []core.Effect {
	if n.numbered.has(id) {
		return out
	}
	num := n.assign(id)
	for r := range core.Rank(n.cfg.N) {
		if r != n.self {
			out = append(out, core.Send(r, Seq{Num: num, ID: id, Payload: r != id.Origin}))
		}
	}
	n.learn(num, id)
	return n.deliverReady(out)
}

// assign gives id the sequencer's next number.
func (n *Node) assign(id ID) uint64 {
	n.numbered.add(id)
	if n.is(MutantReuseNumber) && n.counter == 1 && !n.reused {
		n.reused = true
		return 0
	}
	n.counter++
	return n.counter - 1
}

// recvSeq is SEQ(num, id) at a member.
func (n *Node) recvSeq(m Seq, out []core.Effect) []core.Effect {
	if m.Payload {
		n.have.add(m.ID)
	}
	n.learn(m.Num, m.ID)
	return n.deliverReady(out)
}

// learn records that number num is id's; the first number heard for a
// position is kept.
func (n *Node) learn(num uint64, id ID) {
	if num < n.next {
		return
	}
	for uint64(len(n.order)) <= num {
		n.order = append(n.order, noID)
	}
	if n.order[num] == noID {
		n.order[num] = id
	}
}

// deliverReady is UB's and BB's delivery: messages in the order of their
// numbers, each once its number and its payload are known.
//
// Ambiguity: the appendix does not say when a BB member delivers; the
// number is what orders, so a member waits for both the message and its
// number (MutantDeliverOnPayload delivers on the message alone).
func (n *Node) deliverReady(out []core.Effect) []core.Effect {
	for n.next < uint64(len(n.order)) {
		id := n.order[n.next]
		if id == noID || !n.have.has(id) {
			break
		}
		out = n.deliver(id, out)
		n.next++
	}
	return out
}

// arrived puts id, new at this member, in its vector of received messages
// (Consensus).
func (n *Node) arrived(id ID, out []core.Effect) ([]core.Effect, error) {
	if !n.keepsVector() {
		return out, nil
	}
	n.arrival = append(n.arrival, id)
	if n.is(MutantDeliverBeforeDecision) && len(n.arrival)-n.early >= n.cfg.K {
		for _, x := range n.arrival[n.early:] {
			out = n.deliver(x, out)
		}
		n.early = len(n.arrival)
	}
	if n.self != Sequencer {
		return out, nil
	}
	n.queue = append(n.queue, id)
	return n.maybePropose(out)
}

// maybePropose is the coordinator's invocation of consensus: "k … a
// quantidade de mensagens recebidas que o processo deve aguardar para
// então invocar uma instância de consenso"; the coordinator is "o
// primeiro nó do núcleo estável".
//
// Ambiguity: who invokes. Every member counts its received messages, but
// only the coordinator proposes: in Paxos a proposal of another member is
// a request to the coordinator, and the coordinator's batch holds only
// messages it has. A member's own count would only add requests.
//
// Ambiguity: the last batch. A round's message count need not be a
// multiple of k (a member crashed before sending); the coordinator also
// proposes a smaller batch once every member has either sent it all its
// Config.Messages messages or been suspected (the round is over). Without
// this rule (MutantWaitFullBatch) a correct member's message may never
// be delivered.
func (n *Node) maybePropose(out []core.Effect) ([]core.Effect, error) {
	var err error
	for len(n.queue) >= n.cfg.K {
		b := n.queue[:n.cfg.K]
		n.queue = n.queue[n.cfg.K:]
		if out, err = n.propose(b, out); err != nil {
			return out, err
		}
		if n.is(MutantBatchOverlap) && len(b) >= 2 {
			n.queue = append([]ID{b[0]}, n.queue...)
			if len(n.queue) < n.cfg.K {
				break
			}
		}
	}
	if len(n.queue) > 0 && !n.is(MutantWaitFullBatch) && n.roundOver() {
		b := n.queue
		n.queue = nil
		return n.propose(b, out)
	}
	return out, nil
}

// roundOver reports whether every member has sent all its messages to
// the coordinator or is suspected.
func (n *Node) roundOver() bool {
	for r := range core.Rank(n.cfg.N) {
		if !n.suspected.Has(r) && n.have.count(r) < n.cfg.Messages {
			return false
		}
	}
	return true
}

// propose runs a consensus instance on batch b: "Uma instância de
// consenso inicia quando o coordenador envia uma mensagem aos acceptors
// na primeira fase … Se o líder receber resposta da maioria dos processos
// do núcleo estável poderá então propor o seu valor na segunda fase".
//
// Ambiguity: phase 1 per instance. Read literally, every instance runs
// phase 1; statemachine/paxos (§2.1.2) pre-executes it for all instances
// from the coordinator's first Lead, so phase 1 runs once, before the
// first proposal, and each instance costs phase 2 only (2s messages, the
// appendix's 60 per instance at s = 30).
func (n *Node) propose(b []ID, out []core.Effect) ([]core.Effect, error) {
	var effs []core.Effect
	var err error
	if !n.led {
		if effs, err = n.cons.Step(core.Call(n.cfg.Consensus.Lead()), effs); err != nil {
			return out, err
		}
		n.led = true
	}
	if effs, err = n.cons.Step(core.Call(n.cfg.Consensus.Propose(encodeBatch(b))), effs); err != nil {
		return out, err
	}
	return n.consensusEffects(effs, out)
}

// consensusEffects carries out the consensus node's effects: its sends go
// out; a decision at the coordinator goes to every member (DECISION) and
// is delivered here ("o coordenador comunica a decisão a todos os
// processos do núcleo estável, que também são learners"). Its returns are
// dropped, and so are its timers: channels are reliable ("as mensagens
// enviadas sofrem atraso, porém não são perdidas") and the
// coordinator is fixed, so retransmission has nothing to recover.
func (n *Node) consensusEffects(effs []core.Effect, out []core.Effect) ([]core.Effect, error) {
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			out = append(out, e)
		case core.EffDecide:
			b, err := decodeBatch(n.cfg.Consensus.Decided(e.Value), n.cfg.N)
			if err != nil {
				return out, err
			}
			d := Decision{Inst: e.Instance, Batch: b}
			out = n.toOthers(d, out)
			out = n.recvDecision(d, out)
		}
	}
	return out, nil
}

// recvDecision is DECISION(i, batch) at a member: batches are delivered
// in instance order ("a ordenação das mensagens é realizada por
// consecutivas execuções do consenso").
func (n *Node) recvDecision(d Decision, out []core.Effect) []core.Effect {
	if d.Inst < n.next {
		return out
	}
	i, found := slices.BinarySearchFunc(n.held, d.Inst, func(x Decision, t uint64) int { return cmp.Compare(x.Inst, t) })
	if !found {
		n.held = slices.Insert(n.held, i, Decision{Inst: d.Inst, Batch: slices.Clone(d.Batch)})
	}
	for len(n.held) > 0 && n.held[0].Inst == n.next {
		for _, id := range n.batchOrder(n.held[0].Batch) {
			out = n.deliver(id, out)
		}
		n.held = n.held[1:]
		n.next++
	}
	return out
}

// batchOrder is the delivery order within a batch.
//
// Ambiguity: the appendix says only that delivery is deterministic; the
// order chosen is by origin, then by the origin's sequence number.
// MutantBatchArrivalOrder delivers the batch's messages in this member's
// arrival order instead (those it never received last, by the rule).
func (n *Node) batchOrder(b []ID) []ID {
	s := slices.SortedFunc(slices.Values(b), ID.Compare)
	if !n.is(MutantBatchArrivalOrder) {
		return s
	}
	var out []ID
	for _, id := range n.arrival {
		if slices.Contains(b, id) {
			out = append(out, id)
		}
	}
	for _, id := range s {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// suspect is the detector's report that member q crashed.
func (n *Node) suspect(q core.Rank, out []core.Effect) ([]core.Effect, error) {
	if n.cons != nil {
		effs, err := n.cons.Step(core.Suspect(q), nil)
		if err != nil {
			return out, err
		}
		n.suspected.Add(q)
		if out, err = n.consensusEffects(effs, out); err != nil {
			return out, err
		}
		if n.self == Sequencer {
			return n.maybePropose(out)
		}
		return out, nil
	}
	n.suspected.Add(q)
	return out, nil
}
