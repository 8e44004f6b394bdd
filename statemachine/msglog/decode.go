package msglog

import (
	"bytes"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Bounds on what a decoder accepts, so malformed bytes cannot make it
// allocate without limit.
const (
	maxDecodeList = 1 << 16
	maxDecodeDets = 1 << 16
)

// DecodeProcess reads the state of application process r of cfg written by
// (*Process).AppendBinary: the process's part, then the event logger
// client's bytes, which decodeLog reads (the embedder's decoder, as
// Config.Log builds the client). Only the canonical encoding is accepted;
// errors wrap core.ErrMalformed; it never panics on malformed bytes.
// O(len(b)).
func DecodeProcess(b []byte, r core.Rank, cfg *Config, decodeLog func(b []byte, r core.Rank) (core.Machine, error)) (*Process, error) {
	p, err := New(r, cfg)
	if err != nil {
		return nil, err
	}
	n := cfg.Program.N()
	d := core.NewDecoder(b)
	p.ck = decodeAppState(d, n)
	p.st = decodeAppState(d, n)
	for j := range n {
		p.RecvStable[j] = d.Uint()
		p.peerRecv[j], p.peerInc[j] = d.Uint(), d.Uint()
		p.counters[j], p.down[j], p.answered[j] = d.Bool(), d.Bool(), d.Bool()
	}
	p.started = d.Bool()
	p.inc = d.Uint()
	for range d.Len(maxDecodeList) {
		p.inbox = append(p.inbox, inMsg{From: d.Rank(n), Seq: d.Uint(), Val: d.Uint()})
	}
	p.probeReps = d.Uint()
	p.pollArmed = d.Bool()
	for range d.Len(maxDecodeList) {
		p.calls = append(p.calls, decodeCall(d))
	}
	if d.Bool() {
		c := decodeCall(d)
		p.inCall = &c
	}
	p.pendingDet = upTo(d, maxDecodeDets)
	for range d.Len(maxDecodeList) {
		p.unacked = append(p.unacked, upTo(d, MaxOps))
		p.unackedEv = append(p.unackedEv, decodeEvent(d))
	}
	if d.Bool() {
		h := &held{Msg: inMsg{From: d.Rank(n), Seq: d.Uint(), Val: d.Uint()}}
		h.Det = decodeDet(d)
		h.Done = d.Bool()
		p.hold = h
	}
	p.ckDue, p.recovering, p.detsRead = d.Bool(), d.Bool(), d.Bool()
	for range d.Len(maxDecodeDets) {
		p.dets = append(p.dets, decodeDet(d))
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	p.el, err = decodeLog(b[len(b)-d.Remaining():], r)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(p.AppendBinary(nil), b) {
		return nil, fmt.Errorf("%w: msglog: not the canonical encoding of process %v", core.ErrMalformed, r)
	}
	return p, nil
}

func decodeAppState(d *core.Decoder, n int) appState {
	s := appState{PC: upTo(d, MaxOps), Acc: d.Uint(), Deliveries: d.Uint(), ProbeSrc: core.Rank(d.Int())}
	if s.ProbeSrc != core.NoRank && !s.ProbeSrc.Valid(n) {
		d.Fail("probed source %d", s.ProbeSrc)
	}
	s.SeqSent, s.SeqRecv = make([]uint64, n), make([]uint64, n)
	for j := range n {
		s.SeqSent[j], s.SeqRecv[j] = d.Uint(), d.Uint()
	}
	for range d.Len(maxDecodeList) {
		s.Log = append(s.Log, Logged{To: d.Rank(n), Seq: d.Uint(), Val: d.Uint()})
	}
	s.DetID, s.Covered = d.Uint(), d.Uint()
	return s
}

func decodeDet(d *core.Decoder) Det {
	t := OpKind(d.Byte())
	x := Det{Type: t, Seq: d.Uint(), Src: core.Rank(d.Uint()), Reps: d.Uint()}
	if t > OpOutput {
		d.Fail("determinant type %d", t)
	}
	return x
}

func decodeCall(d *core.Decoder) logCall {
	op := OpKind(d.Byte())
	if op > OpOutput {
		d.Fail("logger call %d", op)
	}
	return logCall{Op: op, Det: decodeDet(d), ID: d.Uint()}
}

func decodeEvent(d *core.Decoder) Event {
	e := Event{Kind: EventKind(d.Byte()), Peer: core.Rank(d.Int()), Seq: d.Uint(), Val: d.Uint(), Dets: d.Uint()}
	if e.Kind < EvSend || e.Kind > EvOutput {
		d.Fail("event kind %d", e.Kind)
	}
	return e
}

// DecodeEvent reads an Event written by its AppendBinary (the values of
// the application processes' histories). Errors wrap core.ErrMalformed.
func DecodeEvent(b []byte) (core.Value, error) {
	d := core.NewDecoder(b)
	e := decodeEvent(d)
	return e, d.Finish()
}

// upTo reads an unsigned varint of at most limit.
func upTo(d *core.Decoder, limit int) int {
	x := d.Uint()
	if x > uint64(limit) {
		d.Fail("%d over %d", x, limit)
		return 0
	}
	return int(x)
}

// IsEvent reports whether b's first byte is an EventKind (otherwise the
// value is the event logger's).
func IsEvent(b []byte) bool { return len(b) > 0 && b[0] >= byte(EvSend) && b[0] <= byte(EvOutput) }
