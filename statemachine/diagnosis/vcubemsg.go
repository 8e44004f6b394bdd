package diagnosis

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// Tags: the first byte of an encoding of a message or input of VCubeNode.
const (
	tagTest  = 1
	tagReply = 2
	tagStart = 3
)

// TestRequest is TEST(s): the tester asks the tested node to answer in round s.
type TestRequest struct{ S uint8 }

// TestReply is REPLY(s, ts): the tested node's answer to TEST(s), with its timestamps, one per node.
type TestReply struct {
	S  uint8
	TS []uint32
}

// Kind is "TEST".
func (TestRequest) Kind() string { return "TEST" }

// Kind is "REPLY".
func (TestReply) Kind() string { return "REPLY" }

// AppendBinary appends tag 1 and s.
func (m TestRequest) AppendBinary(b []byte) []byte {
	return core.AppendUint(append(b, tagTest), uint64(m.S))
}

// AppendBinary appends tag 2, s, the entry count and the entries.
func (m TestReply) AppendBinary(b []byte) []byte {
	b = core.AppendUint(core.AppendUint(append(b, tagReply), uint64(m.S)), uint64(len(m.TS)))
	for _, t := range m.TS {
		b = core.AppendUint(b, uint64(t))
	}
	return b
}

// String is "TEST(s=2)".
func (m TestRequest) String() string { return fmt.Sprintf("TEST(s=%d)", m.S) }

// String is "REPLY(s=2, ts=[0 1 0 0])".
func (m TestReply) String() string {
	var s strings.Builder
	for k, t := range m.TS {
		if k > 0 {
			s.WriteByte(' ')
		}
		fmt.Fprint(&s, t)
	}
	return fmt.Sprintf("REPLY(s=%d, ts=[%s])", m.S, s.String())
}

// DecodeVCubeMessage reads a TEST or REPLY of a system of n nodes written by AppendBinary.
// Errors (wrapping core.ErrMalformed): an unknown tag, s outside 1 … 63, a REPLY of other than n
// entries or with a timestamp beyond 32 bits, trailing bytes, an overlong varint.
func DecodeVCubeMessage(b []byte, n int) (core.Message, error) {
	d := core.NewDecoder(b)
	var m core.Message
	switch tag := d.Byte(); tag {
	case tagTest:
		m = TestRequest{S: decodeS(d)}
	case tagReply:
		r := TestReply{S: decodeS(d)}
		if k := d.Len(n); d.Err() == nil && k != n {
			d.Fail("REPLY of %d entries, want %d", k, n)
		}
		for range n {
			if d.Err() != nil {
				break
			}
			t := d.Uint()
			if t > 1<<32-1 {
				d.Fail("timestamp %d beyond 32 bits", t)
			}
			r.TS = append(r.TS, uint32(t))
		}
		m = r
	default:
		d.Fail("unknown message tag %d", tag)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if string(m.AppendBinary(nil)) != string(b) {
		return nil, fmt.Errorf("%w: non-canonical encoding (overlong varint)", core.ErrMalformed)
	}
	return m, nil
}

func decodeS(d *core.Decoder) uint8 {
	s := d.Uint()
	if d.Err() == nil && (s < 1 || s > 63) {
		d.Fail("s = %d outside 1 … 63", s)
	}
	return uint8(s)
}
