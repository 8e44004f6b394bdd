package dgrp

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// AppendBinary appends the canonical encoding of the node's state, the
// embedded consensus machine's included.
func (n *Node) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(len(n.slow)))
	for _, x := range n.slow {
		b = core.AppendUint(core.AppendUint(b, uint64(x.Round)), uint64(x.Peer))
	}
	b = core.AppendUint(append(b, byte(n.ph)), uint64(n.round))
	b = appendCounters(b, n.syndrome)
	b = appendCounters(b, n.zeta)
	for i := range 2 {
		b = appendRoundSet(b, n.got[i])
		b = appendEvents(core.AppendUint(b, uint64(n.sent[i].R)), n.sent[i].List)
		b = appendCounters(b, n.sent[i].Syndrome)
		b = n.sent[i].Acked.AppendBinary(b)
		b = appendRoundSet(b, n.fails[i])
		b = appendRoundSet(b, n.views[i])
		t := n.reports[i]
		b = core.AppendUint(b, uint64(t.R))
		b = core.AppendUint(b, uint64(len(t.By)))
		for k := range t.By {
			b = core.AppendUint(t.By[k].AppendBinary(b), uint64(t.Cnt[k]))
		}
	}
	b = n.pending.AppendBinary(b)
	b = appendCounters(b, n.made)
	b = appendEvents(b, n.requests)
	b = core.AppendUint(b, uint64(len(n.proposals)))
	for _, p := range n.proposals {
		b = core.AppendInt(core.AppendUint(core.AppendUint(b, uint64(p.K)), uint64(p.C)), int64(p.Leader))
	}
	b = appendEvents(b, n.admitted)
	return core.AppendBytes(b, n.cons.AppendBinary(nil))
}

func appendRoundSet(b []byte, s roundSet) []byte {
	return appendCounters(s.S.AppendBinary(core.AppendUint(b, uint64(s.R))), s.C)
}

func appendEvents(b []byte, es []Event) []byte {
	b = core.AppendUint(b, uint64(len(es)))
	for _, e := range es {
		b = core.AppendUint(core.AppendUint(b, uint64(e.K)), uint64(e.C))
	}
	return b
}

func decodeEvents(d *core.Decoder, n int) []Event {
	k := d.Len(4 * MaxN)
	if k == 0 {
		return nil
	}
	out := make([]Event, k)
	for i := range out {
		out[i] = Event{K: d.Rank(n), C: u32(d)}
	}
	return out
}

// DecodeMessage reads a message written by AppendBinary, of a DGRP of n
// processes whose consensus is cons.
func DecodeMessage(b []byte, n int, cons Consensus) (core.Message, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("%w: empty message", core.ErrMalformed)
	}
	d := core.NewDecoder(b[1:])
	var m core.Message
	switch b[0] {
	case tagEvents:
		m = Events{R: u32(d), List: decodeEvents(d, n), Syndrome: decodeCounters(d, n)}
	case tagAck:
		m = Ack{R: u32(d)}
	case tagReadmit:
		m = Readmit{K: d.Rank(n), C: u32(d)}
	case tagDecide:
		m = Decide{K: d.Rank(n), C: u32(d)}
	case tagWrap:
		inner, err := cons.DecodeMessage(n, b[1:])
		if err != nil {
			return nil, err
		}
		return Wrap{M: inner}, nil
	default:
		return nil, fmt.Errorf("%w: message tag %d", core.ErrMalformed, b[0])
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return m, nil
}

// DecodeNode reads the state of rank p written by AppendBinary, for the
// DGRP cfg describes (cfg is validated; its Consensus decodes the
// embedded machine).
func DecodeNode(b []byte, p core.Rank, cfg Config) (*Node, error) {
	n, err := New(p, cfg)
	if err != nil {
		return nil, err
	}
	N := cfg.N
	d := core.NewDecoder(b)
	k := d.Len(1 << 30)
	for range k {
		n.slow = append(n.slow, Slow{Round: u32(d), Peer: d.Rank(N)})
	}
	n.ph = phase(d.Byte())
	if n.ph > phaseDone {
		d.Fail("phase %d", n.ph)
	}
	n.round = u32(d)
	n.syndrome = decodeCounters(d, N)
	n.zeta = decodeCounters(d, N)
	roundSetOf := func() roundSet {
		s := roundSet{R: u32(d)}
		s.S = core.DecodeRankSet(d, N)
		s.C = decodeCounters(d, N)
		return s
	}
	for i := range 2 {
		n.got[i] = roundSetOf()
		n.sent[i].R = u32(d)
		n.sent[i].List = decodeEvents(d, N)
		n.sent[i].Syndrome = decodeCounters(d, N)
		n.sent[i].Acked = core.DecodeRankSet(d, N)
		n.fails[i] = roundSetOf()
		n.views[i] = roundSetOf()
		t := report{R: u32(d)}
		if m := d.Len(N); m > 0 {
			if m != N {
				d.Fail("report of %d ranks", m)
			}
			t.By, t.Cnt = make([]core.RankSet, m), make([]uint32, m)
			for k := range m {
				t.By[k] = core.DecodeRankSet(d, N)
				t.Cnt[k] = u32(d)
			}
		}
		n.reports[i] = t
	}
	n.pending = core.DecodeRankSet(d, N)
	n.made = decodeCounters(d, N)
	n.requests = decodeEvents(d, N)
	k = d.Len(1 << 30)
	for range k {
		pr := Proposal{K: d.Rank(N), C: u32(d)}
		l := d.Int()
		if l < -1 || l >= int64(N) {
			d.Fail("leader %d", l)
		}
		pr.Leader = core.Rank(l)
		n.proposals = append(n.proposals, pr)
	}
	n.admitted = decodeEvents(d, N)
	cons := d.Bytes(1 << 30)
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if len(n.syndrome) != N || len(n.zeta) != N || len(n.made) != N {
		return nil, fmt.Errorf("%w: counters of the wrong length", core.ErrMalformed)
	}
	if n.cons, err = cfg.Consensus.DecodeNode(N, p, cons); err != nil {
		return nil, err
	}
	return n, nil
}
