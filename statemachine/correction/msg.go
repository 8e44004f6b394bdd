package correction

import (
	"fmt"
	"strconv"

	"github.com/ftkernel/ftkernel/core"
)

// Message kind names (core.Message.Kind).
const (
	KindTree       = "TREE"
	KindCorrection = "CORRECTION"
)

const (
	tagTree       byte = 1
	tagCorrection byte = 2
	tagNode       byte = 0x4e // 'N'
	tagBroadcast  byte = 0x42 // 'B'
)

// Dir is a direction on the correction ring: Left is towards lower ranks
// (r-1, r-2, …), Right towards higher ranks, both modulo P.
type Dir uint8

const (
	Left Dir = iota + 1
	Right
)

// String is "left" or "right".
func (d Dir) String() string {
	switch d {
	case Left:
		return "left"
	case Right:
		return "right"
	}
	return fmt.Sprintf("dir(%d)", uint8(d))
}

// Value is the broadcast payload, a core.Value.
type Value uint64

// AppendBinary appends the value as a uvarint.
func (v Value) AppendBinary(b []byte) []byte { return core.AppendUint(b, uint64(v)) }

// String formats the value in decimal.
func (v Value) String() string { return strconv.FormatUint(uint64(v), 10) }

// Broadcast is the root's input: start broadcasting Value (a core.Input).
type Broadcast struct{ Value Value }

// AppendBinary appends the input's canonical encoding.
func (b Broadcast) AppendBinary(buf []byte) []byte {
	return b.Value.AppendBinary(append(buf, tagBroadcast))
}

// String formats the input.
func (b Broadcast) String() string { return "BROADCAST(v=" + b.Value.String() + ")" }

// Msg is a protocol message: a tree (dissemination) message, or a
// correction message sent in direction Dir (a correction message sent to
// the Right arrives from the receiver's left). Both carry the payload.
//
// A *Msg is immutable. The messages of one broadcast share a cache of their
// three variants, so that forwarding allocates nothing; it is not part of
// the value (equality is equality of encodings).
type Msg struct {
	kind  byte
	dir   Dir
	value Value
	set   *msgSet
}

type msgSet struct{ tree, left, right Msg }

func newMsgSet(v Value) *msgSet {
	s := &msgSet{}
	s.tree = Msg{kind: tagTree, value: v, set: s}
	s.left = Msg{kind: tagCorrection, dir: Left, value: v, set: s}
	s.right = Msg{kind: tagCorrection, dir: Right, value: v, set: s}
	return s
}

// NewTreeMsg is a tree message carrying v.
func NewTreeMsg(v Value) *Msg { return &newMsgSet(v).tree }

// NewCorrectionMsg is a correction message carrying v, sent in direction d.
func NewCorrectionMsg(v Value, d Dir) *Msg {
	s := newMsgSet(v)
	if d == Left {
		return &s.left
	}
	return &s.right
}

// IsTree reports whether m is a tree message.
func (m *Msg) IsTree() bool { return m.kind == tagTree }

// Dir is the direction a correction message was sent in (0 for tree
// messages).
func (m *Msg) Dir() Dir { return m.dir }

// Value is the payload.
func (m *Msg) Value() Value { return m.value }

// Kind is KindTree or KindCorrection.
func (m *Msg) Kind() string {
	if m.kind == tagTree {
		return KindTree
	}
	return KindCorrection
}

// AppendBinary appends: tag byte (1 tree, 2 correction), for correction
// the direction byte (1 left, 2 right), then the value.
func (m *Msg) AppendBinary(b []byte) []byte {
	b = append(b, m.kind)
	if m.kind == tagCorrection {
		b = append(b, byte(m.dir))
	}
	return m.value.AppendBinary(b)
}

// String formats the message, e.g. "CORRECTION(dir=left, v=7)".
func (m *Msg) String() string {
	if m.kind == tagTree {
		return "TREE(v=" + m.value.String() + ")"
	}
	return "CORRECTION(dir=" + m.dir.String() + ", v=" + m.value.String() + ")"
}

// DecodeMessage reads a message written by (*Msg).AppendBinary. Malformed
// bytes are an error wrapping core.ErrMalformed, never a panic.
func DecodeMessage(b []byte) (*Msg, error) {
	d := core.NewDecoder(b)
	tag := d.Byte()
	var dir Dir
	switch tag {
	case tagTree:
	case tagCorrection:
		dir = Dir(d.Byte())
		if d.Err() == nil && dir != Left && dir != Right {
			d.Fail("bad direction %d", dir)
		}
	default:
		d.Fail("bad message tag %d", tag)
	}
	v := Value(d.Uint())
	if err := d.Finish(); err != nil {
		return nil, err
	}
	s := newMsgSet(v)
	switch {
	case tag == tagTree:
		return &s.tree, nil
	case dir == Left:
		return &s.left, nil
	}
	return &s.right, nil
}
