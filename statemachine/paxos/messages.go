package paxos

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// Message tags: the first byte of a message's encoding.
const (
	tagRequest  = 1
	tagPrepare  = 2
	tagPromise  = 3
	tagAccept   = 4
	tagAccepted = 5
	tagNack     = 6
	tagDecided  = 7
	tagLearned  = 8
)

// Request is REQUEST(v): a proposer submits command V to the coordinator
// (§2.1.2: "proposers submetem valores ao coordenador").
type Request struct{ Cmd Command }

// Prepare is PREPARE(b, from): phase 1 for every instance ≥ From at ballot
// B (the thesis's prepare(n-rod), for a batch of instances).
type Prepare struct {
	B    Ballot
	From uint64
}

// Promise is PROMISE(b, from, votes): the acceptor promises to reject
// ballots below B and reports its votes for the instances ≥ From (the
// thesis's prepareResp(n-rod, v-rod, v-accept), one per instance it voted
// in; an instance with no vote is the thesis's null pair).
type Promise struct {
	B     Ballot
	From  uint64
	Votes []Vote
}

// Accept is ACCEPT(b, i, v): phase 2 of instance Inst at ballot B with
// value V (the thesis's accept(n-rod, v-selected)).
type Accept struct {
	B    Ballot
	Inst uint64
	V    Command
}

// Accepted is ACCEPTED(b, i, v), sent to the coordinator and the learners
// (the thesis's acceptResp).
type Accepted struct {
	B    Ballot
	Inst uint64
	V    Command
}

// Nack is NACK(b, promised): the acceptor rejected ballot B because it
// promised the higher ballot Promised.
type Nack struct {
	B        Ballot
	Promised Ballot
}

// Decided is DECIDED(from, values): Values[k] was chosen in instance
// From+k. The coordinator sends it to a proposer whose command was chosen
// and to learners that have not acknowledged it.
type Decided struct {
	From   uint64
	Values []Command
}

// Learned is LEARNED(next): the learner has decided every instance below
// Next (its answer to DECIDED).
type Learned struct{ Next uint64 }

// Kind is "REQUEST".
func (Request) Kind() string { return "REQUEST" }

// Kind is "PREPARE".
func (Prepare) Kind() string { return "PREPARE" }

// Kind is "PROMISE".
func (Promise) Kind() string { return "PROMISE" }

// Kind is "ACCEPT".
func (Accept) Kind() string { return "ACCEPT" }

// Kind is "ACCEPTED".
func (Accepted) Kind() string { return "ACCEPTED" }

// Kind is "NACK".
func (Nack) Kind() string { return "NACK" }

// Kind is "DECIDED".
func (Decided) Kind() string { return "DECIDED" }

// Kind is "LEARNED".
func (Learned) Kind() string { return "LEARNED" }

// AppendBinary appends the tag, then the command.
func (m Request) AppendBinary(b []byte) []byte { return m.Cmd.AppendBinary(append(b, tagRequest)) }

// AppendBinary appends the tag, the ballot and the first instance.
func (m Prepare) AppendBinary(b []byte) []byte {
	return core.AppendUint(core.AppendUint(append(b, tagPrepare), uint64(m.B)), m.From)
}

// AppendBinary appends the tag, the ballot, the first instance and the
// votes by ascending instance.
func (m Promise) AppendBinary(b []byte) []byte {
	b = core.AppendUint(core.AppendUint(append(b, tagPromise), uint64(m.B)), m.From)
	return appendVotes(b, m.Votes)
}

// AppendBinary appends the tag, the ballot, the instance and the value.
func (m Accept) AppendBinary(b []byte) []byte {
	return m.V.AppendBinary(core.AppendUint(core.AppendUint(append(b, tagAccept), uint64(m.B)), m.Inst))
}

// AppendBinary appends the tag, the ballot, the instance and the value.
func (m Accepted) AppendBinary(b []byte) []byte {
	return m.V.AppendBinary(core.AppendUint(core.AppendUint(append(b, tagAccepted), uint64(m.B)), m.Inst))
}

// AppendBinary appends the tag, the rejected ballot and the promised one.
func (m Nack) AppendBinary(b []byte) []byte {
	return core.AppendUint(core.AppendUint(append(b, tagNack), uint64(m.B)), uint64(m.Promised))
}

// AppendBinary appends the tag, the first instance and the values.
func (m Decided) AppendBinary(b []byte) []byte {
	return appendCommands(core.AppendUint(append(b, tagDecided), m.From), m.Values)
}

// AppendBinary appends the tag and the next instance.
func (m Learned) AppendBinary(b []byte) []byte { return core.AppendUint(append(b, tagLearned), m.Next) }

// String formats the message, e.g. `REQUEST(p1:"x")`.
func (m Request) String() string { return fmt.Sprintf("REQUEST(%v)", m.Cmd) }

// String formats the message, e.g. "PREPARE(b=1, from=0)".
func (m Prepare) String() string { return fmt.Sprintf("PREPARE(b=%d, from=%d)", m.B, m.From) }

// String formats the message, e.g. `PROMISE(b=2, from=0, votes=[0:b1=p1:"x"])`.
func (m Promise) String() string {
	s := make([]string, len(m.Votes))
	for i, v := range m.Votes {
		s[i] = v.String()
	}
	return fmt.Sprintf("PROMISE(b=%d, from=%d, votes=[%s])", m.B, m.From, strings.Join(s, " "))
}

// String formats the message, e.g. `ACCEPT(b=1, i=0, v=p1:"x")`.
func (m Accept) String() string { return fmt.Sprintf("ACCEPT(b=%d, i=%d, v=%v)", m.B, m.Inst, m.V) }

// String formats the message, e.g. `ACCEPTED(b=1, i=0, v=p1:"x")`.
func (m Accepted) String() string {
	return fmt.Sprintf("ACCEPTED(b=%d, i=%d, v=%v)", m.B, m.Inst, m.V)
}

// String formats the message, e.g. "NACK(b=1, promised=2)".
func (m Nack) String() string { return fmt.Sprintf("NACK(b=%d, promised=%d)", m.B, m.Promised) }

// String formats the message, e.g. `DECIDED(from=0, [p1:"x" noop])`.
func (m Decided) String() string {
	s := make([]string, len(m.Values))
	for i, v := range m.Values {
		s[i] = v.String()
	}
	return fmt.Sprintf("DECIDED(from=%d, [%s])", m.From, strings.Join(s, " "))
}

// String formats the message, e.g. "LEARNED(next=2)".
func (m Learned) String() string { return fmt.Sprintf("LEARNED(next=%d)", m.Next) }

// DecodeMessage reads a message written by AppendBinary, for a group of n
// processes. Malformed or non-canonical bytes give an error wrapping
// core.ErrMalformed.
func DecodeMessage(b []byte, n int) (core.Message, error) {
	d := core.NewDecoder(b)
	var m core.Message
	switch tag := d.Byte(); tag {
	case tagRequest:
		m = Request{Cmd: decodeCommand(d, n)}
	case tagPrepare:
		m = Prepare{B: Ballot(d.Uint()), From: d.Uint()}
	case tagPromise:
		p := Promise{B: Ballot(d.Uint()), From: d.Uint()}
		p.Votes = decodeVotes(d, n, p.From)
		m = p
	case tagAccept:
		m = Accept{B: Ballot(d.Uint()), Inst: d.Uint(), V: decodeCommand(d, n)}
	case tagAccepted:
		m = Accepted{B: Ballot(d.Uint()), Inst: d.Uint(), V: decodeCommand(d, n)}
	case tagNack:
		m = Nack{B: Ballot(d.Uint()), Promised: Ballot(d.Uint())}
	case tagDecided:
		m = Decided{From: d.Uint(), Values: decodeCommands(d, n, MaxBatch)}
	case tagLearned:
		m = Learned{Next: d.Uint()}
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

// Propose is the call "propose Data" (a core.Input), made at a proposer:
// the command Command{Origin: the proposer, Data} is submitted to the
// coordinator, and the call returns (core.Return(i, command)) once it is
// chosen in instance i.
type Propose struct{ Data string }

// AppendBinary appends tag 1 and the data.
func (c Propose) AppendBinary(b []byte) []byte { return core.AppendString(append(b, 1), c.Data) }

// String formats the call, e.g. `propose("x")`.
func (c Propose) String() string { return fmt.Sprintf("propose(%q)", c.Data) }

// Lead is the call "coordinate" (a core.Input), made at a proposer: the
// embedder names it coordinator, and it runs phase 1 at once with a ballot
// above every ballot it has seen. Called at the initial coordinator before
// any Propose, it is the thesis's pre-executed phase 1.
type Lead struct{}

// AppendBinary appends tag 2.
func (Lead) AppendBinary(b []byte) []byte { return append(b, 2) }

// String is "lead".
func (Lead) String() string { return "lead" }

// DecodeInput reads a Propose or a Lead written by AppendBinary. Malformed
// or non-canonical bytes give an error wrapping core.ErrMalformed.
func DecodeInput(b []byte) (core.Input, error) {
	d := core.NewDecoder(b)
	var in core.Input
	switch tag := d.Byte(); tag {
	case 1:
		in = Propose{Data: d.String(MaxData)}
	case 2:
		in = Lead{}
	default:
		d.Fail("unknown input tag %d", tag)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if !bytes.Equal(in.AppendBinary(nil), b) {
		return nil, fmt.Errorf("%w: non-canonical input encoding", core.ErrMalformed)
	}
	return in, nil
}
