package correction

import (
	"fmt"
	"math"

	"github.com/ftkernel/ftkernel/core"
)

// AppendBinary appends the canonical encoding of the state: the tag 'N',
// the rank, the cause of coloring, the flags and the turn, the six
// correction cursors (next, limit and nearest heard, left and right) and
// the send count as uvarints, then, when colored, the value. The message
// cache is a function of the value (and the config), so it is not written.
func (n *Node) AppendBinary(b []byte) []byte {
	b = append(b, tagNode)
	b = core.AppendUint(b, uint64(n.rank))
	b = append(b, byte(n.via), n.flags, byte(n.turn))
	for _, x := range [...]int32{n.nextL, n.nextR, n.limL, n.limR, n.recvL, n.recvR, n.sent} {
		b = core.AppendUint(b, uint64(x))
	}
	if n.via != Uncolored {
		b = n.value.AppendBinary(b)
	}
	return b
}

// DecodeNode reads the state of process p written by AppendBinary, for the
// given config: the inverse of AppendBinary (DecodeNode(n.AppendBinary(nil),
// n.Rank(), n.Config()) equals n). Malformed bytes (a bad tag, cause, flag,
// turn or cursor, another rank than p, trailing bytes) are an error
// wrapping core.ErrMalformed, never a panic; an invalid config or rank is
// New's error.
func DecodeNode(b []byte, p core.Rank, cfg *Config) (*Node, error) {
	if _, err := New(cfg, p); err != nil {
		return nil, err
	}
	P := cfg.Topology.P()
	d := core.NewDecoder(b)
	if t := d.Byte(); d.Err() == nil && t != tagNode {
		d.Fail("bad node tag %d", t)
	}
	n := &Node{cfg: cfg}
	n.rank = d.Rank(P)
	if d.Err() == nil && n.rank != p {
		d.Fail("state of %v, want %v", n.rank, p)
	}
	n.via = Via(d.Byte())
	n.flags = d.Byte()
	n.turn = Dir(d.Byte())
	if d.Err() == nil {
		switch {
		case n.via > ViaCorrection:
			d.Fail("bad color cause %d", n.via)
		case n.flags&^uint8(fAll) != 0:
			d.Fail("bad flags %#x", n.flags)
		case n.turn != Left && n.turn != Right:
			d.Fail("bad turn %d", n.turn)
		}
	}
	for _, x := range [...]*int32{&n.nextL, &n.nextR, &n.limL, &n.limR, &n.recvL, &n.recvR} {
		v := d.Uint()
		if d.Err() == nil && v > uint64(P)+1 {
			d.Fail("counter %d over %d", v, P+1)
		}
		*x = int32(v)
	}
	if v := d.Uint(); d.Err() == nil && v > math.MaxInt32 {
		d.Fail("send count %d over %d", v, math.MaxInt32)
	} else {
		n.sent = int32(v)
	}
	if d.Err() == nil && n.via != Uncolored {
		n.value = Value(d.Uint())
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	n.msgs = n.decodedMsgs()
	return n, nil
}

// decodedMsgs rebuilds the message cache of a decoded state: the set of
// the value for a colored process (the one color gave it, mutant hooks
// included), the set of the zero value for an uncolored participant (only
// MutantUncoloredCorrects makes one), none otherwise.
func (n *Node) decodedMsgs() *msgSet {
	switch {
	case n.via != Uncolored:
		return n.relayed(n.via, newMsgSet(n.value))
	case n.flags&fParticipant != 0:
		return newMsgSet(n.value)
	}
	return nil
}

// String summarises the state.
func (n *Node) String() string {
	l, r := n.Reach()
	hl, hr := n.Heard()
	return fmt.Sprintf("%v %v participant=%t reach=(%d,%d) heard=(%d,%d)", n.rank, n.via, n.Participant(), l, r, hl, hr)
}
