package msglog

import (
	"errors"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

var errImpossible = errors.New("msglog: impossible event")

// Step applies one event (core.Machine). On error the process is
// unchanged.
func (p *Process) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	c := p.Clone().(*Process)
	res, err := c.step(ev, out)
	if err != nil {
		return out, err
	}
	*p = *c
	return res, nil
}

func (p *Process) step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	var err error
	switch ev.Kind {
	case core.EvCall:
		if _, ok := ev.Input.(Start); !ok || (p.started && p.inc == 0) {
			return out, fmt.Errorf("%w: call %v", errImpossible, ev.Input)
		}
		// A process restarted before its start call runs from its
		// checkpoint already: the call changes nothing.
		p.started = true
	case core.EvReceive:
		if p.cfg.Log.Owns(ev.Msg) {
			if out, err = p.logger(core.Receive(ev.From, ev.Msg), out); err != nil {
				return out, err
			}
			break
		}
		if !ev.From.Valid(p.cfg.Program.N()) || ev.From == p.me {
			return out, fmt.Errorf("%w: %v from %v", errImpossible, ev.Msg, ev.From)
		}
		switch m := ev.Msg.(type) {
		case App:
			if m.For != 0 && m.For != p.inc {
				break // re-sent for an incarnation of this process that crashed
			}
			if p.inc > 0 && p.dropArrival(ev.From, m.Seq) {
				break
			}
			p.inbox = append(p.inbox, inMsg{From: ev.From, Seq: m.Seq, Val: m.Val})
		case GC:
			p.collect(ev.From, m.Stable)
		case ResendFrom:
			if m.Inc <= p.peerInc[ev.From] {
				break // a request of an incarnation that crashed in turn
			}
			p.peerInc[ev.From] = m.Inc
			out = p.resend(ev.From, m.Recv, m.Inc, out)
		case Counters:
			if m.For != p.inc {
				break // the answer to a crashed incarnation's request
			}
			p.peerRecv[ev.From], p.counters[ev.From], p.answered[ev.From] = m.Recv, true, true
		default:
			return out, fmt.Errorf("%w: message %v", errImpossible, ev.Msg)
		}
	case core.EvTimer:
		if ev.Timer == PollTimer {
			p.poll()
			break
		}
		if out, err = p.logger(ev, out); err != nil {
			return out, err
		}
	case core.EvSuspect:
		if ev.Peer.Valid(p.cfg.Program.N()) && ev.Peer != p.me {
			p.down[ev.Peer] = true
		}
		if out, err = p.logger(ev, out); err != nil {
			return out, err
		}
	case core.EvRecovered:
		if out, err = p.logger(ev, out); err != nil {
			return out, err
		}
	case core.EvRestart:
		if out, err = p.logger(ev, out); err != nil {
			return out, err
		}
		out = p.restart(out)
	default:
		return out, fmt.Errorf("%w: event kind %d", errImpossible, ev.Kind)
	}
	return p.run(out)
}

// op is the program's operation at pc, false at its end.
func (p *Process) op() (Op, bool) {
	ops := p.cfg.Program.Procs[p.me]
	if p.st.PC >= len(ops) {
		return Op{}, false
	}
	return ops[p.st.PC], true
}

// run executes the program from pc until an operation blocks.
func (p *Process) run(out []core.Effect) ([]core.Effect, error) {
	var err error
	for p.started {
		if out, err = p.issue(out); err != nil {
			return out, err
		}
		if p.recovering && !p.detsRead {
			return out, nil // lines 49, 59–69: the determinants first
		}
		if p.recovering && len(p.dets) == 0 {
			p.recovering = false // every determinant replayed
		}
		if p.hold != nil {
			if !p.hold.Done {
				return out, nil
			}
			out = p.complete(out)
			continue
		}
		if p.ckDue {
			if !p.ckWait() {
				return out, nil
			}
			p.ckDue = false
			out = p.checkpoint(out)
			continue
		}
		o, ok := p.op()
		if !ok {
			return out, nil
		}
		progressed := false
		switch o.Kind {
		case OpSend:
			out, progressed = p.send(o.Peer, out)
		case OpRecv:
			out, progressed = p.receive(o, out)
		case OpIprobe:
			out, progressed = p.probe(o, out)
		case OpCheckpoint:
			if p.ckWait() {
				p.st.PC++
				out, progressed = p.checkpoint(out), true
			}
		case OpOutput:
			if p.ackWait() {
				out = append(out, core.Deliver(uint64(p.st.PC), Event{Kind: EvOutput, Val: p.st.Acc}))
				p.st.PC++
				progressed = true
			}
		}
		if !progressed {
			return out, nil
		}
	}
	return out, nil
}

// ackWait reports whether the process may make its state visible (a send,
// an output, a checkpoint): no determinant is waiting for its
// acknowledgement. Pessimism (§2.1.3: "o determinante é armazenado antes
// da mensagem ser entregue"; §5.2's delayed acknowledgement: the wait
// moves to the next send). The checkpoint waits too (ambiguity C): its
// last_id then counts exactly the determinants of the deliveries it holds.
func (p *Process) ackWait() bool {
	if p.cfg.Mutant == MutantDeliverBeforeAck {
		return true
	}
	return p.pendingDet == 0
}

// ckWait is ackWait for a checkpoint; the literal reading of ambiguity C
// (MutantRemoveLiveLastID) checkpoints at once.
func (p *Process) ckWait() bool {
	return p.cfg.Mutant == MutantRemoveLiveLastID || p.ackWait()
}

// send is application_send (lines 70–73, with ambiguity A's 1-based
// sequence numbers): seq_sent[j] += 1, the copy logged under (j,
// seq_sent[j]), then transmitted unless suppressed or j is down.
//
// Suppression (ambiguity D, Table 5.2: "Durante a recuperação, as
// mensagens não são enviadas"): a recovering process regenerates and logs
// the sends j received before the crash (seq ≤ j's COUNTERS recv) without
// transmitting them; it waits for j's COUNTERS before its first send to
// j. A send to a process that crashed and has not asked for its messages
// (RESEND_FROM) is logged only: the RESEND_FROM brings it.
func (p *Process) send(j core.Rank, out []core.Effect) ([]core.Effect, bool) {
	if !p.ackWait() {
		return out, false
	}
	if p.inc > 0 && !p.counters[j] && !p.down[j] {
		return out, false
	}
	p.st.SeqSent[j]++
	seq := p.st.SeqSent[j]
	val := p.st.Acc*31 + uint64(p.st.PC)*7 + uint64(p.me) + 1
	p.st.Log = append(p.st.Log, Logged{To: j, Seq: seq, Val: val})
	suppressed := p.inc > 0 && p.counters[j] && seq <= p.peerRecv[j] && p.cfg.Mutant != MutantRetransmitReceived
	if !suppressed && !p.down[j] {
		out = append(out, core.Send(j, App{Seq: seq, Val: val}))
	}
	out = append(out, core.Deliver(uint64(p.st.PC), Event{Kind: EvSend, Peer: j, Seq: seq, Val: val, Dets: p.st.DetID + uint64(p.pendingDet)}))
	p.st.PC++
	return out, true
}

// receive is application_receive (lines 74–79). A receive by explicit
// source is deterministic (§2.1.3) and takes the first message from that
// source. An ANY_SOURCE receive takes the first message to arrive, and is
// non-deterministic: its determinant {type recv, source, repetitions 0}
// is saved (line 76) and the delivery completes once it is acknowledged
// (synchronous mode) or at once with the acknowledgement awaited before
// the next send (DelayedAck). During replay it takes its source from the
// next determinant (Table 5.2: "com ANY_SOURCE, obter o emissor do
// determinante").
func (p *Process) receive(o Op, out []core.Effect) ([]core.Effect, bool) {
	src := o.Peer
	if src == Probed {
		src = p.st.ProbeSrc
	}
	if src != AnySource {
		k := p.find(src)
		if k < 0 {
			return out, false
		}
		return p.deliver(p.take(k), out), true
	}
	if d, ok := p.replaying(OpRecv); ok {
		k := p.find(d.Src)
		if p.cfg.Mutant == MutantReplayArrivalOrder {
			k = p.find(AnySource)
		}
		if k < 0 {
			return out, false
		}
		p.dets = p.dets[1:]
		return p.deliver(p.take(k), out), true
	}
	k := p.find(AnySource)
	if k < 0 {
		return out, false
	}
	m := p.take(k)
	d := Det{Type: OpRecv, Src: m.From}
	return p.nondet(m, d, out), true
}

// probe is MPI_Iprobe in a polling loop (Table 5.2): a poll that finds no
// message counts one repetition (the PollTimer paces the polls; after
// Max unsuccessful polls the loop blocks as MPI_Probe would). A poll that
// finds one succeeds with the source of the first message to arrive and
// the repetitions so far: its determinant {iprobe, source, repetitions}.
// During replay the loop repeats the determinant's repetitions, then
// blocks for a message from its source ("Ao atingir o mesmo número de
// repetições a primitiva bloqueia até que uma mensagem seja recebida").
func (p *Process) probe(o Op, out []core.Effect) ([]core.Effect, bool) {
	if d, ok := p.replaying(OpIprobe); ok {
		reps := d.Reps
		if p.cfg.Mutant == MutantForgetRepetitions {
			reps = 0
		}
		if p.find(d.Src) < 0 {
			return out, false
		}
		p.dets = p.dets[1:]
		p.probeReps = reps
		return p.probed(d.Src, out), true
	}
	k := p.find(o.Peer)
	if k < 0 {
		if p.probeReps < uint64(o.Max) && !p.pollArmed {
			p.pollArmed = true
			out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: PollTimer, Delay: 1})
		}
		return out, false
	}
	src := p.inbox[k].From
	if o.Peer != AnySource {
		return p.probed(src, out), true
	}
	return p.nondet(inMsg{From: src}, Det{Type: OpIprobe, Src: src, Reps: p.probeReps}, out), true
}

// poll is one more unsuccessful poll of the loop, if no message matches.
func (p *Process) poll() {
	p.pollArmed = false
	o, ok := p.op()
	if !ok || o.Kind != OpIprobe || p.hold != nil || (p.recovering && !p.detsRead) {
		return
	}
	if _, replay := p.replaying(OpIprobe); replay {
		return
	}
	if p.find(o.Peer) < 0 && p.probeReps < uint64(o.Max) {
		p.probeReps++
	}
}

func (p *Process) probed(src core.Rank, out []core.Effect) []core.Effect {
	p.st.ProbeSrc = src
	p.st.Acc = p.st.Acc*31 + p.probeReps + 1
	out = p.record(Event{Kind: EvProbe, Peer: src, Val: p.probeReps}, out)
	p.probeReps, p.pollArmed = 0, false
	p.st.PC++
	return out
}

// replaying returns the next determinant during replay, for an operation
// of type t. A determinant of another type is a replay out of step with
// the program: it is not used.
func (p *Process) replaying(t OpKind) (Det, bool) {
	if len(p.dets) == 0 || p.dets[0].Type != t {
		return Det{}, false
	}
	return p.dets[0], true
}

// nondet saves the determinant of a non-deterministic event (line 76) and
// completes the event when the acknowledgement comes, or at once under
// DelayedAck (and under the mutant deliver-before-ack).
func (p *Process) nondet(m inMsg, d Det, out []core.Effect) []core.Effect {
	p.calls = append(p.calls, logCall{Op: d.Type, Det: d})
	p.pendingDet++
	if p.cfg.DelayedAck || p.cfg.Mutant == MutantDeliverBeforeAck {
		p.hold = &held{Msg: m, Det: d, Done: true}
		return p.complete(out)
	}
	p.hold = &held{Msg: m, Det: d}
	return out
}

// complete finishes the held non-deterministic event.
func (p *Process) complete(out []core.Effect) []core.Effect {
	h := p.hold
	p.hold = nil
	if h.Det.Type == OpIprobe {
		return p.probed(h.Det.Src, out)
	}
	return p.deliver(h.Msg, out)
}

// deliver hands m to the application: seq_recv[j] += 1 (line 79), the
// state folds it in. Under DelayedAck the delivery is recorded once its
// determinant is acknowledged.
func (p *Process) deliver(m inMsg, out []core.Effect) []core.Effect {
	p.st.SeqRecv[m.From]++
	p.st.Deliveries++
	p.st.Acc = p.st.Acc*31 + m.Val + uint64(m.From)
	out = p.record(Event{Kind: EvRecv, Peer: m.From, Seq: m.Seq, Val: m.Val}, out)
	p.st.PC++
	if p.cfg.Mutant == MutantGCLiveCounter {
		// garbage_collection with v_recv instead of v_recv_stable.
		out = append(out, core.Send(m.From, GC{Stable: p.st.SeqRecv[m.From]}))
	}
	if k := p.cfg.CheckpointEvery; k > 0 && p.st.Deliveries%uint64(k) == 0 {
		p.ckDue = true
	}
	return out
}

// record delivers the event of the operation at pc to the history; under
// DelayedAck, while a determinant waits for its acknowledgement, the
// record waits too (the delivery is not yet stable: a crash now may
// replay it otherwise, and no peer has seen its effect).
func (p *Process) record(e Event, out []core.Effect) []core.Effect {
	if p.pendingDet > 0 && p.cfg.DelayedAck && p.cfg.Mutant != MutantDeliverBeforeAck {
		p.unacked = append(p.unacked, p.st.PC)
		p.unackedEv = append(p.unackedEv, e)
		return out
	}
	return append(out, core.Deliver(uint64(p.st.PC), e))
}

// find is the index in the inbox of the first message from src (any
// source for AnySource), or -1.
func (p *Process) find(src core.Rank) int {
	for k, m := range p.inbox {
		if src == AnySource || m.From == src {
			return k
		}
	}
	return -1
}

func (p *Process) take(k int) inMsg {
	m := p.inbox[k]
	p.inbox = append(p.inbox[:k:k], p.inbox[k+1:]...)
	return m
}
