package gossipfd

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// Message tags: the first byte of a message's encoding.
const (
	tagGossip = 1
	tagPing   = 2
	tagPong   = 3
)

// Gossip is GOSSIP(table): the sender's whole heartbeat table, its own entry
// incremented (§5.1, Fig. 11). Table has one entry per host (N).
type Gossip struct {
	Table []uint64
}

// Ping is PING: the consensus phase asks a suspected host whether it is
// alive (§5.3).
type Ping struct{}

// Pong is PONG(hb): the answer to PING, carrying the responder's own
// heartbeat.
type Pong struct {
	HB uint64
}

// Kind is "GOSSIP".
func (Gossip) Kind() string { return "GOSSIP" }

// Kind is "PING".
func (Ping) Kind() string { return "PING" }

// Kind is "PONG".
func (Pong) Kind() string { return "PONG" }

// AppendBinary appends tag 1, the entry count, then the entries.
func (m Gossip) AppendBinary(b []byte) []byte {
	b = core.AppendUint(append(b, tagGossip), uint64(len(m.Table)))
	for _, h := range m.Table {
		b = core.AppendUint(b, h)
	}
	return b
}

// AppendBinary appends tag 2.
func (Ping) AppendBinary(b []byte) []byte { return append(b, tagPing) }

// AppendBinary appends tag 3, then the heartbeat.
func (m Pong) AppendBinary(b []byte) []byte { return core.AppendUint(append(b, tagPong), m.HB) }

// String formats the message, e.g. "GOSSIP[3 0 2 2]".
func (m Gossip) String() string {
	var s strings.Builder
	s.WriteString("GOSSIP[")
	for i, h := range m.Table {
		if i > 0 {
			s.WriteByte(' ')
		}
		fmt.Fprint(&s, h)
	}
	s.WriteByte(']')
	return s.String()
}

// String is "PING".
func (Ping) String() string { return "PING" }

// String formats the message, e.g. "PONG(hb=7)".
func (m Pong) String() string { return fmt.Sprintf("PONG(hb=%d)", m.HB) }

// DecodeMessage reads a message of a detector of n hosts written by
// AppendBinary. Unknown tags, a table of another length, overlong varints
// and trailing bytes give an error wrapping core.ErrMalformed.
func DecodeMessage(b []byte, n int) (core.Message, error) {
	d := core.NewDecoder(b)
	var m core.Message
	switch tag := d.Byte(); tag {
	case tagGossip:
		k := d.Len(MaxN)
		if d.Err() == nil && k != n {
			d.Fail("table of %d entries for %d hosts", k, n)
		}
		t := make([]uint64, 0, k)
		for i := 0; i < k && d.Err() == nil; i++ {
			t = append(t, d.Uint())
		}
		m = Gossip{Table: t}
	case tagPing:
		m = Ping{}
	case tagPong:
		m = Pong{HB: d.Uint()}
	default:
		d.Fail("unknown message tag %d", tag)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if !canonical(b, m) {
		return nil, fmt.Errorf("%w: non-canonical encoding (overlong varint)", core.ErrMalformed)
	}
	return m, nil
}

// canonical reports whether b is exactly the encoding of v (varints can be
// overlong, and an overlong encoding must not decode to an equal value).
func canonical(b []byte, v interface{ AppendBinary([]byte) []byte }) bool {
	return string(v.AppendBinary(nil)) == string(b)
}

// Start is the call that starts a module (a core.Input): it arms the gossip
// timer. Under the start-up assumption every module is started at the same
// moment.
type Start struct{}

// AppendBinary appends nothing: Start has no fields.
func (Start) AppendBinary(b []byte) []byte { return b }

// String is "START".
func (Start) String() string { return "START" }
