package replica

import (
	"bytes"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Message tags (first byte of an encoding).
const (
	tagData   = 1
	tagCommit = 2
	tagStart  = 3
)

// Data is a program message in flight (§4.2): the master sends it to every
// replica of the destination logical process; a new master re-sends it
// from its backup.
type Data struct {
	MID     MID
	Payload int64
}

// Commit is the master's commit of a send to the other replicas of its own
// logical process (§4.2: "The commit is done by sending the message's
// MID").
type Commit struct{ MID MID }

// Kind is "DATA".
func (Data) Kind() string { return "DATA" }

// Kind is "COMMIT".
func (Commit) Kind() string { return "COMMIT" }

// AppendBinary appends tag, MID and payload.
func (m Data) AppendBinary(b []byte) []byte {
	b = append(b, tagData)
	b = m.MID.AppendBinary(b)
	return core.AppendInt(b, m.Payload)
}

// AppendBinary appends tag and MID.
func (m Commit) AppendBinary(b []byte) []byte {
	return m.MID.AppendBinary(append(b, tagCommit))
}

func (m Data) String() string   { return fmt.Sprintf("DATA%v=%d", m.MID, m.Payload) }
func (m Commit) String() string { return fmt.Sprintf("COMMIT%v", m.MID) }

// DecodeMessage reads a DATA or COMMIT written by AppendBinary for a
// program of procs logical processes. Malformed or non-canonical bytes
// give an error wrapping core.ErrMalformed.
func DecodeMessage(b []byte, procs int) (core.Message, error) {
	d := core.NewDecoder(b)
	m := decodeMsg(d, procs)
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if !bytes.Equal(m.AppendBinary(nil), b) {
		return nil, fmt.Errorf("%w: non-canonical message encoding", core.ErrMalformed)
	}
	return m, nil
}

// Start is the call that starts a replica's program (core.EvCall).
type Start struct{}

// AppendBinary appends the tag.
func (Start) AppendBinary(b []byte) []byte { return append(b, tagStart) }

// String is "Start".
func (Start) String() string { return "Start" }

// Delivery is the value of an EffDeliver effect: the MID and payload of the
// message delivered to the program.
type Delivery struct {
	MID     MID
	Payload int64
}

// AppendBinary appends MID and payload.
func (v Delivery) AppendBinary(b []byte) []byte {
	return core.AppendInt(v.MID.AppendBinary(b), v.Payload)
}

func (v Delivery) String() string { return fmt.Sprintf("%v=%d", v.MID, v.Payload) }

// Output is the value of an EffDecide effect: the argument of an
// Output(value) instruction.
type Output struct{ V int64 }

// AppendBinary appends the value.
func (v Output) AppendBinary(b []byte) []byte { return core.AppendInt(b, v.V) }

func (v Output) String() string { return fmt.Sprint(v.V) }
