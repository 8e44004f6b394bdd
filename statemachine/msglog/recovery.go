package msglog

import "github.com/ftkernel/ftkernel/core"

// restart is upon recovery() (lines 42–52) after Recover restored the
// checkpoint: the determinants since the checkpoint's last_id are read
// (el_recovery, line 49; the replicated loggers read through a quorum),
// and every peer is asked to re-send what came after the checkpoint's
// receive counter (RESEND_FROM(v_recv_i[j]), lines 50–52: the counter
// of the checkpoint, restored at line 46, ambiguity B). The process then
// re-runs its program from the checkpoint (the replay).
func (p *Process) restart(out []core.Effect) []core.Effect {
	p.recovering, p.detsRead = true, false
	p.calls = append([]logCall{{Op: callRetrieve, ID: p.ck.DetID}}, p.calls...)
	for j := range p.cfg.Program.Procs {
		if core.Rank(j) != p.me {
			out = append(out, core.Send(core.Rank(j), ResendFrom{Recv: p.st.SeqRecv[j], Inc: p.inc}))
		}
	}
	return out
}

// resend is upon receive(v_recv_j[i], j) (lines 53–58): re-send to the
// recovering j, in order, the logged messages with seq > k (ambiguity A:
// 1-based; the literal 0-based id skips one), then answer with the
// counters (lines 36–41: COUNTERS(v_recv_i[j], v_sent_i[j]); v_recv
// counting the messages arrived and not yet delivered too).
//
// Ambiguity D: Algorithm 4 sends the counters when the failure is
// detected; here they answer RESEND_FROM instead, on the FIFO channel
// behind every message the crashed incarnation sent: sent at detection
// they could miss a message of the crashed incarnation still in flight,
// and the recovering process would then transmit it again. From the
// detection (EvSuspect) to this request, sends to j are logged and not
// transmitted (the communicator is being repaired, Fig. 5.3); the
// re-send carries them.
func (p *Process) resend(j core.Rank, k, inc uint64, out []core.Effect) []core.Effect {
	p.down[j] = false
	for _, l := range p.st.Log {
		seq := l.Seq
		if p.cfg.Mutant == MutantZeroBasedIDs {
			seq--
		}
		if l.To == j && seq > k {
			out = append(out, core.Send(j, App{Seq: l.Seq, Val: l.Val, For: inc}))
		}
	}
	// j's request also says what j has now: k of this process's
	// messages. A COUNTERS of j's crashed incarnation is stale; a send
	// this process regenerates in its own replay is suppressed only up
	// to k (the messages after k go out now, or when regenerated).
	p.peerRecv[j], p.counters[j] = k, true
	out = append(out, core.Send(j, Counters{Recv: p.arrived(j), Sent: p.st.SeqSent[j], For: inc}))
	if p.inc > 0 && !p.answered[j] {
		// Two failures at once: this process restarted while j was down
		// and its own RESEND_FROM to j was lost (an answer sent before j
		// crashed would have come first, FIFO; and j, which records the
		// requests it answered on stable storage, ignores a request it
		// answered). It asks again, for what came after what it has.
		out = append(out, core.Send(j, ResendFrom{Recv: p.arrived(j), Inc: p.inc}))
	}
	return out
}

// arrived is how many of j's messages this process has received: the ones
// delivered (v_recv) and the ones that arrived and wait in the inbox (MPI
// has them; the recovering sender must not transmit them again).
func (p *Process) arrived(j core.Rank) uint64 {
	n := p.st.SeqRecv[j]
	for _, m := range p.inbox {
		if m.From == j {
			n = max(n, m.Seq)
		}
	}
	if p.hold != nil && p.hold.Msg.From == j {
		n = max(n, p.hold.Msg.Seq) // taken, waiting for its determinant's acknowledgement
	}
	return n
}

// dropArrival reports whether a restarted process drops the message
// seq from j on its arrival (Ambiguity D). Its request races with the
// sends j made before the request reached it (j was not told of this
// incarnation's crash): the re-send of a message that already came is
// dropped, and so is a message that skips a sequence number, which j
// re-sends on the request behind the ones it skips (kept, an explicit
// receive would take it in place of the one it skips).
func (p *Process) dropArrival(j core.Rank, seq uint64) bool {
	n := p.arrived(j)
	return seq <= n || seq > n+1 && p.cfg.Mutant != MutantKeepSequenceGap
}
