package eventlogger

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// maxEntries bounds what a decoder allocates for a list of entries.
const maxEntries = 1 << 16

func decodeEntries(d *core.Decoder) []Entry {
	n := d.Len(maxEntries)
	var es []Entry
	for range n {
		id := d.Uint()
		es = append(es, Entry{ID: id, Det: d.String(1 << 16)})
	}
	return es
}

// DecodeMessage reads a message written by AppendBinary for deployment
// cfg. Malformed bytes give an error wrapping core.ErrMalformed.
func DecodeMessage(b []byte, cfg Config) (core.Message, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("%w: empty message", core.ErrMalformed)
	}
	d := core.NewDecoder(b[1:])
	switch b[0] {
	case 0:
		s := d.Uint()
		if d.Err() != nil || s >= uint64(cfg.Sequences()) {
			return nil, fmt.Errorf("%w: sequence %d of %d", core.ErrMalformed, s, cfg.Sequences())
		}
		rest := b[len(b)-d.Remaining():]
		m, err := cfg.Consensus.DecodeMessage(cfg.Group(int(s)), rest)
		if err != nil {
			return nil, err
		}
		return Wrap{Seq: uint32(s), M: m}, nil
	case 1:
		m := Msg{K: MsgKind(d.Byte())}
		m.Seq = uint32(d.Uint())
		m.Proc = core.Rank(d.Int())
		m.ID = d.Uint()
		m.Inst = d.Uint()
		m.Det = d.String(1 << 16)
		m.Entries = decodeEntries(d)
		if m.K < MsgSave || m.K > MsgVotesReq {
			d.Fail("message kind %d", m.K)
		}
		if err := d.Finish(); err != nil {
			return nil, err
		}
		return m, nil
	}
	return nil, fmt.Errorf("%w: message tag %d", core.ErrMalformed, b[0])
}

// DecodeValue reads a Result written by AppendBinary.
func DecodeValue(b []byte) (core.Value, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("%w: empty value", core.ErrMalformed)
	}
	r := Result{Op: Op(b[0])}
	d := core.NewDecoder(b[1:])
	r.ID = d.Uint()
	r.Entries = decodeEntries(d)
	if r.Op < OpSave || r.Op > opStart {
		d.Fail("op %d", r.Op)
	}
	if r.Op == OpRetrieve && r.Entries == nil {
		r.Entries = []Entry{}
	}
	return r, d.Finish()
}

// DecodeNode reads the state of process r of cfg written by AppendBinary.
func DecodeNode(b []byte, r core.Rank, cfg Config) (*Node, error) {
	n, err := New(r, cfg)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 || Role(b[0]) != n.role {
		return nil, fmt.Errorf("%w: role", core.ErrMalformed)
	}
	d := core.NewDecoder(b[1:])
	n.nextID = d.Uint()
	n.ops = d.Uint()
	n.calls = d.Uint()
	n.inc = d.Uint()
	switch d.Byte() {
	case 0:
	case 1:
		in, err := decodeInput(d)
		if err != nil {
			return nil, err
		}
		n.queued = in
	default:
		d.Fail("queued call flag")
	}
	if op := Op(d.Byte()); op != 0 {
		if op < OpSave || op > OpRetrieve {
			d.Fail("operation %d in progress", op)
		}
		p := &pending{Op: op}
		p.ID = d.Uint()
		p.Data = d.String(1 << 20)
		p.Inst = d.Uint()
		p.Wait = d.Bool()
		p.Remote = d.Bool()
		p.Call = d.Uint()
		n.cur = p
	}
	if k := d.Len(MaxProcs); k != len(n.logs) {
		d.Fail("logs for %d processes", k) // the centralized logger's: one per process
	} else {
		for i := range k {
			n.removed[i] = d.Uint()
			n.logs[i] = decodeEntries(d)
		}
	}
	k := d.Len(1 << 16)
	for range k {
		var rd read
		rd.From = core.Rank(d.Int())
		rd.Proc = core.Rank(d.Uint())
		rd.ID = d.Uint()
		rd.Inst = d.Uint()
		n.reads = append(n.reads, rd)
	}
	for i, s := range n.seqOf {
		bs := d.Bytes(1 << 24)
		if d.Err() != nil {
			break
		}
		g := cfg.Group(s)
		l, _ := g.Local(r)
		m, err := cfg.Consensus.DecodeNode(g, l, bs)
		if err != nil {
			return nil, err
		}
		n.seqs[i] = m
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return n, nil
}

// decodeInput reads a call written by AppendBinary.
func decodeInput(d *core.Decoder) (core.Input, error) {
	switch Op(d.Byte()) {
	case OpSave:
		return Save{Det: d.String(1 << 16)}, d.Err()
	case OpRemove:
		return RemoveUpTo{ID: d.Uint()}, d.Err()
	case OpRetrieve:
		return RetrieveSince{ID: d.Uint()}, d.Err()
	case opStart:
		return Start{}, d.Err()
	}
	return nil, fmt.Errorf("%w: call", core.ErrMalformed)
}
