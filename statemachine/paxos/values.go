package paxos

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Ballot is a round number (the thesis's "número de rodada", n-rod). 0 is
// none; ballot b ≥ 1 belongs to proposer Proposers[(b-1) mod P] (see
// Config.Owner), so no two proposers use the same ballot.
type Ballot uint64

// Command is the value of one instance (a core.Value): the opaque bytes
// Data proposed by Origin, or the no-op (Origin = core.NoRank) a new
// coordinator puts in the instances phase 1 found empty.
//
// Commands equal in Origin and Data are one command: the coordinator gives
// it one instance. An embedder that proposes the same bytes twice means it
// once; one that needs two (the event logger's determinants) makes them
// differ, with its own identifier inside Data.
type Command struct {
	Origin core.Rank
	Data   string
}

// Noop is the no-op command.
var Noop = Command{Origin: core.NoRank}

// IsNoop reports whether c is the no-op.
func (c Command) IsNoop() bool { return c.Origin == core.NoRank }

// AppendBinary appends the origin (a zig-zag varint, -1 for the no-op),
// then, unless it is the no-op, the length-prefixed data.
func (c Command) AppendBinary(b []byte) []byte {
	b = core.AppendInt(b, int64(c.Origin))
	if c.IsNoop() {
		return b
	}
	return core.AppendString(b, c.Data)
}

// String formats the command as `p1:"x"`, or "noop".
func (c Command) String() string {
	if c.IsNoop() {
		return "noop"
	}
	return fmt.Sprintf("%v:%q", c.Origin, c.Data)
}

// decodeCommand reads what AppendBinary wrote; origins must be below n.
func decodeCommand(d *core.Decoder, n int) Command {
	o := d.Int()
	if o == -1 {
		return Noop
	}
	if o < 0 || o >= int64(n) {
		d.Fail("command origin %d out of range for N=%d", o, n)
		return Command{}
	}
	return Command{Origin: core.Rank(o), Data: d.String(MaxData)}
}

// Vote is an acceptor's vote: it accepted V in instance Inst at ballot B
// (the thesis's v-rod and v-accept).
type Vote struct {
	Inst uint64
	B    Ballot
	V    Command
}

func (v Vote) appendBinary(b []byte) []byte {
	return v.V.AppendBinary(core.AppendUint(core.AppendUint(b, v.Inst), uint64(v.B)))
}

func decodeVote(d *core.Decoder, n int) Vote {
	var v Vote
	v.Inst = d.Uint()
	v.B = Ballot(d.Uint())
	v.V = decodeCommand(d, n)
	return v
}

// String formats the vote as `1:b2=p1:"x"` (instance:ballot=value).
func (v Vote) String() string { return fmt.Sprintf("%d:b%d=%v", v.Inst, v.B, v.V) }

// appendVotes appends a count and the votes.
func appendVotes(b []byte, vs []Vote) []byte {
	b = core.AppendUint(b, uint64(len(vs)))
	for _, v := range vs {
		b = v.appendBinary(b)
	}
	return b
}

// decodeVotes reads what appendVotes wrote: instances strictly ascending,
// at least from, ballots ≥ 1.
func decodeVotes(d *core.Decoder, n int, from uint64) []Vote {
	k := d.Len(d.Remaining())
	var vs []Vote
	for i := 0; i < k && d.Err() == nil; i++ {
		v := decodeVote(d, n)
		switch {
		case v.Inst < from:
			d.Fail("vote for instance %d below %d", v.Inst, from)
		case i > 0 && v.Inst <= vs[i-1].Inst:
			d.Fail("votes not strictly ascending")
		case v.B == 0:
			d.Fail("vote at ballot 0")
		}
		vs = append(vs, v)
	}
	return vs
}

func appendCommands(b []byte, cs []Command) []byte {
	b = core.AppendUint(b, uint64(len(cs)))
	for _, c := range cs {
		b = c.AppendBinary(b)
	}
	return b
}

func decodeCommands(d *core.Decoder, n, limit int) []Command {
	k := d.Len(min(d.Remaining(), limit))
	var cs []Command
	for i := 0; i < k && d.Err() == nil; i++ {
		cs = append(cs, decodeCommand(d, n))
	}
	return cs
}
