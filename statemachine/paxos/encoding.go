package paxos

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// AppendBinary appends the canonical encoding of the state: the stable
// part (promised ballot, votes, log, ballot tried), then the volatile one (suspected
// set, coordinator view, highest ballot seen, pending proposals, learner
// tallies, whether the timer is armed, and the coordinator's state when it
// coordinates). The rank and the Config are not encoded: DecodeNode takes
// them.
func (n *Node) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(n.promised))
	b = appendVotes(b, n.accepted)
	b = appendCommands(b, n.log)
	b = core.AppendUint(b, uint64(n.tried))
	b = n.suspected.AppendBinary(b)
	b = core.AppendInt(b, int64(n.leader))
	b = core.AppendUint(b, uint64(n.maxSeen))
	b = appendCommands(b, n.pending)
	b = core.AppendUint(b, uint64(len(n.tallies)))
	for _, t := range n.tallies {
		b = core.AppendUint(core.AppendUint(b, t.inst), uint64(t.b))
		b = t.v.AppendBinary(b)
		b = core.AppendBool(t.voters.AppendBinary(b), t.chosen)
	}
	b = core.AppendBool(b, n.armed)
	c := n.coord
	b = core.AppendBool(b, c != nil)
	if c == nil {
		return b
	}
	b = core.AppendUint(core.AppendUint(b, uint64(c.b)), c.from)
	b = core.AppendBool(b, c.preparing)
	b = c.promises.AppendBinary(b)
	b = appendVotes(b, c.reported)
	b = core.AppendUint(b, uint64(len(c.slots)))
	for _, s := range c.slots {
		b = core.AppendBool(s.voters.AppendBinary(s.v.AppendBinary(b)), s.chosen)
	}
	b = appendCommands(b, c.queue)
	for _, a := range c.acks {
		b = core.AppendUint(b, a)
	}
	return b
}

// DecodeNode reads the state of process p of the group cfg written by
// AppendBinary. Bytes that are malformed, non-canonical or impossible (a
// state for a role p does not hold, a rank or ballot outside cfg, votes
// out of order) give an error wrapping core.ErrMalformed; a bad cfg or p
// gives New's error.
func DecodeNode(b []byte, p core.Rank, cfg Config) (*Node, error) {
	n, err := New(p, cfg)
	if err != nil {
		return nil, err
	}
	c := n.cfg
	N := c.N
	d := core.NewDecoder(b)
	n.promised = Ballot(d.Uint())
	n.accepted = decodeVotes(d, N, 0)
	n.log = decodeCommands(d, N, d.Remaining())
	if !n.r.acceptor && (n.promised != 0 || len(n.accepted) > 0) {
		d.Fail("acceptor state at a process that is not an acceptor")
	}
	for _, v := range n.log {
		if !c.valid(v) {
			d.Fail("decided %v not a proposer's command", v)
		}
	}
	for _, v := range n.accepted {
		if !c.valid(v.V) {
			d.Fail("vote %v not for a proposer's command", v)
		}
	}
	if !n.r.learner && len(n.log) > 0 {
		d.Fail("a log at a process that is not a learner")
	}
	n.tried = Ballot(d.Uint())
	if n.tried != 0 && (!n.r.proposer || c.Owner(n.tried) != p) {
		d.Fail("ballot %d tried by %v, not its own", n.tried, p)
	}
	n.suspected = core.DecodeRankSet(d, N)
	if n.suspected.Has(p) {
		d.Fail("%v suspects itself", p)
	}
	n.leader = core.Rank(d.Int())
	if n.leader != core.NoRank && !c.isProposer(n.leader) {
		d.Fail("coordinator %v is not a proposer", n.leader)
	}
	n.maxSeen = Ballot(d.Uint())
	n.pending = decodeCommands(d, N, d.Remaining())
	for i, v := range n.pending {
		if v.Origin != p || !n.r.proposer || slices.Contains(n.pending[:i], v) {
			d.Fail("pending %v not a distinct proposal of %v", v, p)
		}
	}
	k := d.Len(d.Remaining())
	for i := 0; i < k && d.Err() == nil; i++ {
		var t tally
		t.inst, t.b = d.Uint(), Ballot(d.Uint())
		t.v = decodeCommand(d, N)
		t.voters = core.DecodeRankSet(d, N)
		t.chosen = d.Bool()
		if !c.valid(t.v) || !n.r.learner || t.inst < uint64(len(n.log)) || i > 0 && t.inst <= n.tallies[i-1].inst || !subsetOf(t.voters, c.Acceptors) {
			d.Fail("tally %d out of place", t.inst)
		}
		n.tallies = append(n.tallies, t)
	}
	n.armed = d.Bool()
	if d.Bool() {
		n.coord = decodeCoordinator(d, n)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if !bytes.Equal(n.AppendBinary(nil), b) {
		return nil, fmt.Errorf("%w: non-canonical node encoding", core.ErrMalformed)
	}
	return n, nil
}

func decodeCoordinator(d *core.Decoder, n *Node) *coordinator {
	c := n.cfg
	k := &coordinator{b: Ballot(d.Uint()), from: d.Uint(), preparing: d.Bool()}
	if !n.r.proposer || k.b == 0 || c.Owner(k.b) != n.self {
		d.Fail("coordinator state without a proposer's ballot")
	}
	if k.from > uint64(len(n.log)) {
		d.Fail("batch from %d beyond the log", k.from)
	}
	k.promises = core.DecodeRankSet(d, c.N)
	k.reported = decodeVotes(d, c.N, k.from)
	ns := d.Len(d.Remaining())
	for i := 0; i < ns && d.Err() == nil; i++ {
		var s slot
		s.v = decodeCommand(d, c.N)
		s.voters = core.DecodeRankSet(d, c.N)
		s.chosen = d.Bool()
		k.slots = append(k.slots, s)
		if !subsetOf(s.voters, c.Acceptors) {
			d.Fail("slot voters not acceptors")
		}
	}
	k.queue = decodeCommands(d, c.N, d.Remaining())
	k.acks = make([]uint64, len(c.Learners))
	for i := range k.acks {
		k.acks[i] = d.Uint()
	}
	for _, v := range k.queue {
		if !c.valid(v) {
			d.Fail("queued %v not a proposer's command", v)
		}
	}
	for _, s := range k.slots {
		if !c.valid(s.v) {
			d.Fail("slot %v not a proposer's command", s.v)
		}
	}
	if !subsetOf(k.promises, c.Acceptors) {
		d.Fail("promises not from acceptors")
	}
	if k.preparing && len(k.slots) > 0 || !k.preparing && (!k.promises.Empty() || len(k.reported) > 0 || len(k.queue) > 0) {
		d.Fail("coordinator state of the wrong phase")
	}
	return k
}

func subsetOf(s core.RankSet, ranks []core.Rank) bool {
	ok := true
	s.Each(func(r core.Rank) { ok = ok && slices.Contains(ranks, r) })
	return ok
}

// valid reports whether v is the no-op or a proposer's command.
func (c *Config) valid(v Command) bool { return v.IsNoop() || c.isProposer(v.Origin) }
