package replica

import (
	"bytes"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// AppendBinary appends the canonical encoding of the replica's state:
// rank, started, pc, accumulator, clock, per-channel send and delivery
// counts, view (dead set), backup (by MID),
// log, history, receive queue (in arrival order), outbox (in order, each
// destination and message), whether PumpTimer is armed, and the delivery,
// output, DATA-sent and COMMIT-sent counters. The Config is not encoded: DecodeNode takes it.
func (n *Node) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(n.self))
	b = core.AppendBool(b, n.started)
	b = core.AppendUint(b, uint64(n.pc))
	b = core.AppendInt(b, n.acc)
	b = core.AppendUint(b, n.tick)
	b = n.sendSeq.appendBinary(b)
	b = n.recvSeq.appendBinary(b)
	b = n.dead.AppendBinary(b)
	b = appendEntries(b, n.backup)
	b = n.log.appendBinary(b)
	b = n.history.appendBinary(b)
	b = appendEntries(b, n.queue)
	b = core.AppendUint(b, uint64(len(n.outbox)))
	for _, p := range n.outbox {
		b = core.AppendUint(b, uint64(p.To))
		b = p.Msg.AppendBinary(b)
	}
	b = core.AppendBool(b, n.armed)
	b = core.AppendUint(b, n.delivered)
	b = core.AppendUint(b, n.outputs)
	b = core.AppendUint(b, n.sentData)
	return core.AppendUint(b, n.sentCommit)
}

func appendEntries(b []byte, s []entry) []byte {
	b = core.AppendUint(b, uint64(len(s)))
	for _, e := range s {
		b = e.MID.AppendBinary(b)
		b = core.AppendInt(b, e.Payload)
	}
	return b
}

// decodeEntries reads a table of entries; with an order, one sorted in it
// (the backup).
func decodeEntries(d *core.Decoder, procs int, order midOrder) []entry {
	n := d.Len(d.Remaining())
	var s []entry
	for i := 0; i < n && d.Err() == nil; i++ {
		e := entry{MID: decodeMID(d, procs)}
		e.Payload = d.Int()
		if order != nil && i > 0 && !ascending(s[i-1].MID, e.MID, order) {
			d.Fail("backup not strictly ascending by MID")
		}
		s = append(s, e)
	}
	return s
}

// decodeMsg reads one DATA or COMMIT.
func decodeMsg(d *core.Decoder, procs int) core.Message {
	switch tag := d.Byte(); tag {
	case tagData:
		mid := decodeMID(d, procs)
		return Data{MID: mid, Payload: d.Int()}
	case tagCommit:
		return Commit{MID: decodeMID(d, procs)}
	default:
		d.Fail("unknown message tag %d", tag)
		return nil
	}
}

// DecodeNode reads the state of replica self of cfg written by
// AppendBinary. Malformed bytes, non-canonical ones, or an impossible state
// (another rank, a pc past the program, self in its own dead set, a rank
// outside the layout) give an error wrapping core.ErrMalformed; a bad cfg
// or self gives New's error.
func DecodeNode(b []byte, self core.Rank, cfg Config) (*Node, error) {
	n, err := New(self, cfg)
	if err != nil {
		return nil, err
	}
	N, procs := n.cfg.Layout.N(), n.cfg.Layout.Procs()
	d := core.NewDecoder(b)
	if r := d.Rank(N); d.Err() == nil && r != self {
		d.Fail("state of %v, not %v", r, self)
	}
	n.started = d.Bool()
	if pc := d.Uint(); pc > uint64(len(n.cfg.Programs[n.lp])) {
		d.Fail("pc %d past the program", pc)
	} else {
		n.pc = int(pc)
	}
	n.acc = d.Int()
	n.tick = d.Uint()
	n.sendSeq = decodeCounters(d, procs)
	n.recvSeq = decodeCounters(d, procs)
	n.dead = core.DecodeRankSet(d, N)
	if n.dead.Has(self) {
		d.Fail("%v dead in its own view", self)
	}
	n.backup = decodeEntries(d, procs, n.h.compare)
	n.log = decodeMIDSet(d, procs, n.h.compare)
	n.history = decodeMIDSet(d, procs, n.h.compare)
	n.queue = decodeEntries(d, procs, nil)
	k := d.Len(d.Remaining())
	for i := 0; i < k && d.Err() == nil; i++ {
		to := d.Rank(N)
		n.outbox = append(n.outbox, pending{To: to, Msg: decodeMsg(d, procs)})
	}
	n.armed = d.Bool()
	n.delivered = d.Uint()
	n.outputs = d.Uint()
	n.sentData = d.Uint()
	n.sentCommit = d.Uint()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if !bytes.Equal(n.AppendBinary(nil), b) {
		return nil, fmt.Errorf("%w: non-canonical replica encoding", core.ErrMalformed)
	}
	return n, nil
}
