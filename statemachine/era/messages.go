package era

import (
	"bytes"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Message tags: the first byte of a message's encoding.
const (
	tagUp            = 1
	tagDown          = 2
	tagResultRequest = 3
)

// Up is UP(a, v): a contribution sent to the parent (ERA Part 3 and Part 4)
// or back to a new root (ERA Part 2, Recv(RESULTREQUEST)).
type Up struct {
	A uint64
	V Value
}

// Down is DOWN(a, v): the decision of agreement a, sent by procedure
// Decision and in answer to UP and RESULTREQUEST.
type Down struct {
	A uint64
	V Value
}

// ResultRequest is RESULTREQUEST(a): a new root asks whether a was decided
// (ERA Part 4).
type ResultRequest struct {
	A uint64
}

// Kind is "UP".
func (Up) Kind() string { return "UP" }

// Kind is "DOWN".
func (Down) Kind() string { return "DOWN" }

// Kind is "RESULTREQUEST".
func (ResultRequest) Kind() string { return "RESULTREQUEST" }

// AppendBinary appends tag 1, a, then the value.
func (m Up) AppendBinary(b []byte) []byte {
	return appendValue(core.AppendUint(append(b, tagUp), m.A), m.V)
}

// AppendBinary appends tag 2, a, then the value.
func (m Down) AppendBinary(b []byte) []byte {
	return appendValue(core.AppendUint(append(b, tagDown), m.A), m.V)
}

// AppendBinary appends tag 3, then a.
func (m ResultRequest) AppendBinary(b []byte) []byte {
	return core.AppendUint(append(b, tagResultRequest), m.A)
}

// String formats the message, e.g. "UP(a=0, v=0x1)".
func (m Up) String() string { return fmt.Sprintf("UP(a=%d, v=%v)", m.A, m.V) }

// String formats the message, e.g. "DOWN(a=0, v=0x1)".
func (m Down) String() string { return fmt.Sprintf("DOWN(a=%d, v=%v)", m.A, m.V) }

// String formats the message, e.g. "RESULTREQUEST(a=0)".
func (m ResultRequest) String() string { return fmt.Sprintf("RESULTREQUEST(a=%d)", m.A) }

// Contribute is the call Agreement(V, A) (a core.Input). V must not be ⊥.
type Contribute struct {
	A uint64
	V Value
}

// AppendBinary appends a, then the value.
func (c Contribute) AppendBinary(b []byte) []byte {
	return appendValue(core.AppendUint(b, c.A), c.V)
}

// String formats the call, e.g. "Agreement(v=0x1, a=0)".
func (c Contribute) String() string { return fmt.Sprintf("Agreement(v=%v, a=%d)", c.V, c.A) }

// AckAgree is the call MPIX_Comm_failure_ack(); MPIX_Comm_agree(Flag) for
// agreement A (a core.Input, for the ULFM Op only): the caller acknowledges
// the failures it has been told about, S_p, and contributes
// NewContribution(Flag, S_p, S_p) (see Node.ackAgree). The contribution is
// resolved when the call is made; Node.Input returns it.
type AckAgree struct {
	A    uint64
	Flag uint64
}

// AppendBinary appends a, then the flag.
func (c AckAgree) AppendBinary(b []byte) []byte {
	return core.AppendUint(core.AppendUint(b, c.A), c.Flag)
}

// String formats the call, e.g. "AckAgree(flag=0x1, a=1)".
func (c AckAgree) String() string { return fmt.Sprintf("AckAgree(flag=%#x, a=%d)", c.Flag, c.A) }

// appendValue appends 0 for ⊥, else 1 and the value's encoding.
func appendValue(b []byte, v Value) []byte {
	if v == nil {
		return append(b, 0)
	}
	return v.AppendBinary(append(b, 1))
}

// decodeValue reads what appendValue wrote.
func decodeValue(d *core.Decoder, op Op) Value {
	if !d.Bool() {
		return nil
	}
	v, err := op.Decode(d)
	if err != nil {
		d.Fail("value: %v", err)
		return nil
	}
	return v
}

// DecodeMessage reads a message written by AppendBinary, with values of op
// (nil: And). Malformed or non-canonical bytes, and UP or DOWN without a
// value, give an error wrapping core.ErrMalformed.
func DecodeMessage(b []byte, op Op) (core.Message, error) {
	if op == nil {
		op = And
	}
	d := core.NewDecoder(b)
	tag := d.Byte()
	a := d.Uint()
	var m core.Message
	switch tag {
	case tagUp, tagDown:
		v := decodeValue(d, op)
		if v == nil {
			d.Fail("UP or DOWN (tag %d) without a value", tag)
		}
		if tag == tagUp {
			m = Up{A: a, V: v}
		} else {
			m = Down{A: a, V: v}
		}
	case tagResultRequest:
		m = ResultRequest{A: a}
	default:
		d.Fail("unknown message tag %d", tag)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if !bytes.Equal(m.AppendBinary(nil), b) {
		return nil, fmt.Errorf("%w: non-canonical message encoding", core.ErrMalformed)
	}
	return m, nil
}
