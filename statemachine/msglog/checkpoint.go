package msglog

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// The calls to the logger other than saves (whose Op is the operation
// whose determinant they save).
const (
	callRemove   = OpCheckpoint // remove-up-to
	callRetrieve = OpOutput     // retrieve-since
)

// checkpoint is lines 14–19 and the garbage collection of lines 20–24: the
// state, msg_sent, last_id, v_sent and v_recv saved to stable storage
// (only the last checkpoint is kept), v_recv_stable := v_recv (line 17;
// line 4's comment "copy of v_sent[]" is a typo, E14), the logger's
// determinants up to last_id removed (line 18), and each peer told the
// stable counter (line 22). The thesis runs garbage_collection
// "periodicamente"; the stable counters change only here, so it runs
// here.
//
// Ambiguity C: el_remove(last_id) with last_id as the checkpoint holds it
// (a value, not the variable), and the checkpoint waits for the
// determinants in flight (ackWait), so that the checkpoint's last_id
// counts exactly the determinants of the deliveries it holds and a
// determinant saved after it survives the remove. The literal reading is
// MutantRemoveLiveLastID.
func (p *Process) checkpoint(out []core.Effect) []core.Effect {
	p.ck = p.st.clone()
	p.ck.Covered = p.st.DetID + uint64(p.pendingDet)
	copy(p.RecvStable, p.st.SeqRecv)
	p.calls = append(p.calls, logCall{Op: callRemove, ID: p.ck.DetID})
	for j := range p.RecvStable {
		if core.Rank(j) == p.me || p.down[j] {
			continue
		}
		out = append(out, core.Send(core.Rank(j), GC{Stable: p.RecvStable[j]}))
	}
	return out
}

// collect is lines 25–30: delete the logged messages to j with seq ≤ k
// (ambiguity A: 1-based seq, `msg.dest.id` read as the message's
// sequence number).
func (p *Process) collect(j core.Rank, k uint64) {
	p.st.Log = slices.DeleteFunc(p.st.Log, func(l Logged) bool {
		seq := l.Seq
		if p.cfg.Mutant == MutantZeroBasedIDs {
			seq-- // line 71's id is v_sent[j] before the increment
		}
		return l.To == j && seq <= k
	})
}

// issue hands the next queued call to the event logger's client when it
// has none in progress: the recovery read first, then the saves in
// order, then the removes (a background task: "el_remove" may wait for
// the saves behind it).
func (p *Process) issue(out []core.Effect) ([]core.Effect, error) {
	if p.inCall != nil || len(p.calls) == 0 {
		return out, nil
	}
	k := 0
	for i, c := range p.calls {
		if c.Op != callRemove {
			k = i
			break
		}
	}
	c := p.calls[k]
	p.calls = append(p.calls[:k:k], p.calls[k+1:]...)
	var in core.Input
	switch c.Op {
	case OpRecv, OpIprobe:
		in = p.cfg.Log.Save(c.Det.encode())
	case callRemove:
		if p.cfg.Mutant == MutantRemoveLiveLastID {
			c.ID = p.st.DetID
		}
		in = p.cfg.Log.RemoveUpTo(c.ID)
	case callRetrieve:
		in = p.cfg.Log.RetrieveSince(c.ID)
	}
	p.inCall = &c
	return p.logger(core.Call(in), out)
}

// logger steps the embedded logger client and carries out its effects:
// sends and timers go out, a return completes the call in progress.
func (p *Process) logger(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	effs, err := p.el.Step(ev, nil)
	if err != nil {
		return out, err
	}
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend, core.EffSetTimer:
			out = append(out, e)
		case core.EffReturn:
			if out, err = p.returned(e.Value, out); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// returned is the logger's answer to the call in progress.
func (p *Process) returned(v core.Value, out []core.Effect) ([]core.Effect, error) {
	c := p.inCall
	if c == nil {
		return out, fmt.Errorf("%w: a logger return with no call in progress", errImpossible)
	}
	p.inCall = nil
	id, dets, err := p.cfg.Log.Result(v)
	if err != nil {
		return out, err
	}
	switch c.Op {
	case OpRecv, OpIprobe:
		// The determinant is stable: last_id (lines 76–77, ambiguity B:
		// `id` there is the determinant counter).
		p.st.DetID = id
		p.pendingDet--
		if p.hold != nil {
			p.hold.Done = true
		}
		if p.pendingDet == 0 {
			for k, i := range p.unacked {
				out = append(out, core.Deliver(uint64(i), p.unackedEv[k]))
			}
			p.unacked, p.unackedEv = nil, nil
		}
	case callRetrieve:
		// recovery_determinants (lines 59–69).
		p.dets = p.dets[:0]
		for _, s := range dets {
			d, err := ParseDet(s)
			if err != nil {
				return out, err
			}
			p.dets = append(p.dets, d)
		}
		p.st.DetID += uint64(len(dets))
		p.detsRead = true
	}
	return out, nil
}
