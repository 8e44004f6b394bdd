package abcast

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// Message tags: the first byte of a message's encoding, above
// statemachine/paxos's (1 … 8), so that one decoder can tell the two apart.
const (
	tagMsg      = 101
	tagSeq      = 102
	tagDecision = 103
)

// ID names a broadcast message: its origin and the origin's sequence
// number. It is the value delivered (core.Value); the message's content is
// its identity.
type ID struct {
	Origin core.Rank
	Seq    uint32
}

// Key is the delivery's instance field: origin in the high 32 bits, Seq in
// the low ones (distinct for distinct messages).
func (id ID) Key() uint64 { return uint64(id.Origin)<<32 | uint64(id.Seq) }

func (id ID) String() string { return fmt.Sprintf("m%d.%d", id.Origin, id.Seq) }

// AppendBinary encodes origin then seq.
func (id ID) AppendBinary(b []byte) []byte {
	return core.AppendUint(core.AppendInt(b, int64(id.Origin)), uint64(id.Seq))
}

// Compare is the deterministic order within a batch: by origin, then seq.
func (id ID) Compare(o ID) int {
	if c := cmp.Compare(id.Origin, o.Origin); c != 0 {
		return c
	}
	return cmp.Compare(id.Seq, o.Seq)
}

func decodeID(d *core.Decoder, n int) ID {
	o := d.Int()
	s := d.Uint()
	if o < 0 || o >= int64(n) || s >= MaxMessages {
		d.Fail("message m%d.%d out of range (N=%d, messages < %d)", o, s, n, MaxMessages)
		return ID{}
	}
	return ID{Origin: core.Rank(o), Seq: uint32(s)}
}

// Broadcast is the call "broadcast my Seq-th message" at a member.
type Broadcast struct{ Seq uint32 }

func (b Broadcast) String() string { return fmt.Sprintf("broadcast(%d)", b.Seq) }

// AppendBinary encodes Seq.
func (b Broadcast) AppendBinary(x []byte) []byte { return core.AppendUint(x, uint64(b.Seq)) }

// NoNum marks a MSG without a sequence number.
const NoNum = -1

// Msg is MSG(id, num): a member sends its message (UB: to the sequencer;
// BB and Consensus: to every other member). Num is the sequence number
// when the sender is the BB sequencer numbering its own message, NoNum
// otherwise.
type Msg struct {
	ID  ID
	Num int64
}

// Seq is SEQ(num, id): the sequencer's number num for message id. In UB
// it carries the message (Payload) to the members other than its origin,
// and is the origin's acknowledgement of its number (Payload false); in
// BB it carries only the number.
type Seq struct {
	Num     uint64
	ID      ID
	Payload bool
}

// Decision is DECISION(i, batch): the coordinator tells the members the
// batch consensus instance Inst decided (Appendix A: "o coordenador
// comunica a decisão a todos os processos do núcleo estável, que também
// são learners"). The batch carries the messages themselves, so a member
// that missed one (its origin crashed mid-broadcast) delivers it too.
type Decision struct {
	Inst  uint64
	Batch []ID
}

func (Msg) Kind() string      { return "MSG" }
func (Seq) Kind() string      { return "SEQ" }
func (Decision) Kind() string { return "DECISION" }

func (m Msg) String() string {
	if m.Num == NoNum {
		return fmt.Sprintf("MSG(%v)", m.ID)
	}
	return fmt.Sprintf("MSG(%v, #%d)", m.ID, m.Num)
}

func (m Seq) String() string {
	if m.Payload {
		return fmt.Sprintf("SEQ(#%d, %v)", m.Num, m.ID)
	}
	return fmt.Sprintf("SEQ(#%d, %v, number only)", m.Num, m.ID)
}

func (m Decision) String() string {
	return fmt.Sprintf("DECISION(%d, %s)", m.Inst, batchString(m.Batch))
}

func batchString(b []ID) string {
	parts := make([]string, len(b))
	for i, id := range b {
		parts[i] = id.String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// AppendBinary encodes the tag, then the fields.
func (m Msg) AppendBinary(b []byte) []byte {
	return core.AppendInt(m.ID.AppendBinary(append(b, tagMsg)), m.Num)
}

// AppendBinary encodes the tag, then the fields.
func (m Seq) AppendBinary(b []byte) []byte {
	return core.AppendBool(m.ID.AppendBinary(core.AppendUint(append(b, tagSeq), m.Num)), m.Payload)
}

// AppendBinary encodes the tag, then the fields.
func (m Decision) AppendBinary(b []byte) []byte {
	b = core.AppendUint(core.AppendUint(append(b, tagDecision), m.Inst), uint64(len(m.Batch)))
	for _, id := range m.Batch {
		b = id.AppendBinary(b)
	}
	return b
}

// IsMessage reports whether b is the encoding of a message of this
// package (by its tag), so that a decoder of the composed protocol can
// hand the rest to the consensus.
func IsMessage(b []byte) bool {
	return len(b) > 0 && b[0] >= tagMsg && b[0] <= tagDecision
}

// DecodeMessage reads a message of this package in a core of n members.
func DecodeMessage(b []byte, n int) (core.Message, error) {
	d := core.NewDecoder(b)
	var m core.Message
	switch t := d.Byte(); t {
	case tagMsg:
		id := decodeID(d, n)
		num := d.Int()
		if num < NoNum {
			d.Fail("MSG number %d", num)
		}
		m = Msg{ID: id, Num: num}
	case tagSeq:
		num := d.Uint()
		m = Seq{Num: num, ID: decodeID(d, n), Payload: d.Bool()}
	case tagDecision:
		inst := d.Uint()
		k := d.Len(MaxN * MaxMessages)
		batch := make([]ID, 0, min(k, 1024))
		for range k {
			batch = append(batch, decodeID(d, n))
		}
		m = Decision{Inst: inst, Batch: batch}
	default:
		d.Fail("unknown abcast message tag %d", t)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return m, nil
}

// encodeBatch is a batch as the consensus's data: "o.s,o.s,…".
func encodeBatch(b []ID) string {
	parts := make([]string, len(b))
	for i, id := range b {
		parts[i] = fmt.Sprintf("%d.%d", id.Origin, id.Seq)
	}
	return strings.Join(parts, ",")
}

// decodeBatch reads encodeBatch's data in a core of n members.
func decodeBatch(s string, n int) ([]ID, error) {
	if s == "" {
		return nil, nil
	}
	var out []ID
	for _, p := range strings.Split(s, ",") {
		o, q, ok := strings.Cut(p, ".")
		r, err1 := strconv.Atoi(o)
		k, err2 := strconv.ParseUint(q, 10, 32)
		if !ok || err1 != nil || err2 != nil || r < 0 || r >= n || k >= MaxMessages {
			return nil, fmt.Errorf("abcast: batch %q: bad message %q", s, p)
		}
		out = append(out, ID{Origin: core.Rank(r), Seq: uint32(k)})
	}
	return out, nil
}
