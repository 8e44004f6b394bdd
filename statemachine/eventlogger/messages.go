package eventlogger

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// Wrap carries a message of sequence Seq's consensus group between the
// global ranks of its members.
type Wrap struct {
	Seq uint32
	M   core.Message
}

// Kind is the consensus message's kind (ACCEPT, ACCEPTED, …).
func (w Wrap) Kind() string { return w.M.Kind() }

// AppendBinary appends tag 0, the sequence and the inner message.
func (w Wrap) AppendBinary(b []byte) []byte {
	return w.M.AppendBinary(core.AppendUint(append(b, 0), uint64(w.Seq)))
}

func (w Wrap) String() string { return fmt.Sprintf("s%d/%v", w.Seq, w.M) }

// MsgKind is the kind of a logger message.
type MsgKind uint8

const (
	// The centralized logger's requests and replies (Fig. 5.2: "P0 →
	// R0", "R0 → P0").
	MsgSave MsgKind = iota + 1
	MsgSaved
	MsgRemove
	MsgRemoved
	MsgRetrieve
	// MsgDets answers a read with a process's entries.
	MsgDets
	// MsgLogReq asks a Classic replica for the entries of Proc with id >
	// ID that its log holds up to instance Inst (the read barrier's),
	// answered once its log reaches it.
	MsgLogReq
	// MsgVotesReq asks one acceptor for its votes (the mutant's read).
	MsgVotesReq
)

var msgNames = [...]string{"", "SAVE", "SAVED", "REMOVE", "REMOVED", "RETRIEVE", "DETS", "LOGREQ", "VOTESREQ"}

// Msg is a logger message: a request or reply of the centralized logger,
// or a read of the Paxos loggers.
type Msg struct {
	K       MsgKind
	Seq     uint32
	Proc    core.Rank
	ID      uint64
	Inst    uint64
	Det     string
	Entries []Entry
}

// Kind is the message's name.
func (m Msg) Kind() string {
	if int(m.K) < len(msgNames) {
		return msgNames[m.K]
	}
	return "?"
}

// AppendBinary appends tag 1 and the fields.
func (m Msg) AppendBinary(b []byte) []byte {
	b = append(b, 1, byte(m.K))
	b = core.AppendUint(b, uint64(m.Seq))
	b = core.AppendInt(b, int64(m.Proc))
	b = core.AppendUint(b, m.ID)
	b = core.AppendUint(b, m.Inst)
	b = core.AppendString(b, m.Det)
	b = core.AppendUint(b, uint64(len(m.Entries)))
	for _, e := range m.Entries {
		b = core.AppendString(core.AppendUint(b, e.ID), e.Det)
	}
	return b
}

func (m Msg) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s(", m.Kind())
	switch m.K {
	case MsgSave:
		fmt.Fprintf(&s, "id=%d, %q", m.ID, m.Det)
	case MsgDets:
		fmt.Fprintf(&s, "since=%d, %v", m.ID, Result{Op: OpRetrieve, ID: m.ID, Entries: m.Entries})
	case MsgLogReq:
		fmt.Fprintf(&s, "p%d, since=%d, inst=%d", m.Proc, m.ID, m.Inst)
	case MsgVotesReq:
		fmt.Fprintf(&s, "s%d, since=%d", m.Seq, m.ID)
	default:
		fmt.Fprintf(&s, "id=%d", m.ID)
	}
	s.WriteString(")")
	return s.String()
}
