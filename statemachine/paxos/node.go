package paxos

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// Node is one process of a Paxos group, with the roles its Config gives
// it (a core.Machine).
type Node struct {
	self core.Rank
	cfg  *Config // shared by the group's nodes and their clones; never changed
	r    roles

	// Stable storage: what Recover keeps.
	promised Ballot    // acceptor: the highest ballot promised
	accepted []Vote    // acceptor: its vote per instance, ascending Inst
	log      []Command // learner: the decisions delivered, instance i at log[i]
	tried    Ballot    // proposer: the highest ballot it has tried

	// Volatile.
	suspected core.RankSet // ranks the detector reported dead
	leader    core.Rank    // the coordinator in this node's view; NoRank: none left
	maxSeen   Ballot       // the highest ballot seen in any message
	pending   []Command    // proposer: commands proposed here, not yet returned
	tallies   []tally      // learner: instances ≥ len(log) with votes, ascending
	coord     *coordinator // proposer: non-nil while it coordinates
	armed     bool         // TimerRetransmit is armed
}

// tally is a learner's count for one undecided instance: the voters of
// the highest ballot seen, or the chosen value.
type tally struct {
	inst   uint64
	b      Ballot
	v      Command
	voters core.RankSet
	chosen bool
}

// coordinator is the volatile state of a proposer while it coordinates.
type coordinator struct {
	b         Ballot
	from      uint64       // phase 1 covers the instances ≥ from
	preparing bool         // in phase 1
	promises  core.RankSet // acceptors that promised b
	reported  []Vote       // the highest-ballot vote per instance in the promises
	slots     []slot       // instances from, from+1, … in phase 2
	queue     []Command    // requests received during phase 1
	acks      []uint64     // per learner (index in Learners): instances it is known to have decided
}

// slot is one instance of the coordinator's phase 2.
type slot struct {
	v      Command
	voters core.RankSet
	chosen bool
}

var _ core.Machine = (*Node)(nil)

// New returns process p of the group cfg in its initial state: nothing
// promised, accepted or decided, and Proposers[0] as the coordinator.
func New(p core.Rank, cfg Config) (*Node, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if !p.Valid(c.N) {
		return nil, fmt.Errorf("paxos: rank %v out of range for N=%d", p, c.N)
	}
	return fresh(p, &c), nil
}

// NewAll returns the N nodes of the group cfg.
func NewAll(cfg Config) ([]*Node, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ns := make([]*Node, c.N)
	for p := range ns {
		ns[p] = fresh(core.Rank(p), &c)
	}
	return ns, nil
}

func fresh(p core.Rank, c *Config) *Node {
	return &Node{self: p, cfg: c, r: c.rolesOf(p), leader: c.Proposers[0]}
}

// Step applies one event: a call (core.Call of a Propose or a Lead), a
// message (core.Receive of any message of this package), a failure report
// (core.Suspect) or its withdrawal (core.Recovered), the retransmission
// timer (core.Timer(TimerRetransmit)), or the first step after Recover
// (core.Restart).
// It then arms the timer if something waits for an answer. Impossible events
// (a call or message for a role the node does not hold, a rank out of
// range, a message whose sender cannot have sent it, a proposal already
// pending, a malformed value) give an error and change nothing.
func (n *Node) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	if err := n.check(ev); err != nil {
		return out, err
	}
	switch ev.Kind {
	case core.EvCall:
		switch c := ev.Input.(type) {
		case Propose:
			out = n.propose(Command{Origin: n.self, Data: c.Data}, out)
		case Lead:
			out = n.lead(out)
		}
	case core.EvReceive:
		out = n.receive(ev.From, ev.Msg, out)
	case core.EvSuspect:
		out = n.suspect(ev.Peer, out)
	case core.EvTimer:
		n.armed = false
		out = n.retransmit(out)
	case core.EvRestart:
		out = n.restart(out)
	case core.EvRecovered:
		n.suspected.Remove(ev.Peer)
	}
	if !n.armed && n.waiting() {
		n.armed = true
		out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: TimerRetransmit, Delay: n.cfg.Retransmit})
	}
	return out, nil
}

func (n *Node) receive(q core.Rank, m core.Message, out []core.Effect) []core.Effect {
	switch m := m.(type) {
	case Request:
		return n.recvRequest(q, m, out)
	case Prepare:
		return n.recvPrepare(q, m, out)
	case Promise:
		return n.recvPromise(q, m, out)
	case Accept:
		return n.recvAccept(q, m, out)
	case Accepted:
		return n.recvAccepted(q, m, out)
	case Nack:
		return n.recvNack(q, m, out)
	case Decided:
		return n.recvDecided(q, m, out)
	case Learned:
		return n.recvLearned(q, m, out)
	}
	return out
}

// check rejects the impossible events, before anything changes.
func (n *Node) check(ev core.Event) error {
	switch ev.Kind {
	case core.EvCall:
		switch c := ev.Input.(type) {
		case Propose:
			if !n.r.proposer {
				return fmt.Errorf("paxos: %v: %v at a process that is not a proposer", n.self, c)
			}
			if len(c.Data) > MaxData {
				return fmt.Errorf("paxos: %v: command of %d bytes, over %d", n.self, len(c.Data), MaxData)
			}
			if slices.Contains(n.pending, Command{Origin: n.self, Data: c.Data}) {
				return fmt.Errorf("paxos: %v: %v called twice while pending", n.self, c)
			}
			return nil
		case Lead:
			if !n.r.proposer {
				return fmt.Errorf("paxos: %v: lead at a process that is not a proposer", n.self)
			}
			return nil
		}
		return fmt.Errorf("paxos: %v: input %T is not a paxos.Propose or paxos.Lead", n.self, ev.Input)
	case core.EvReceive:
		if !ev.From.Valid(n.cfg.N) {
			return fmt.Errorf("paxos: %v: message from %v (N=%d)", n.self, ev.From, n.cfg.N)
		}
		return n.checkMessage(ev.From, ev.Msg)
	case core.EvSuspect, core.EvRecovered:
		if !ev.Peer.Valid(n.cfg.N) || ev.Peer == n.self {
			return fmt.Errorf("paxos: %v: cannot suspect %v (N=%d)", n.self, ev.Peer, n.cfg.N)
		}
		return nil
	case core.EvRestart:
		return nil
	case core.EvTimer:
		if ev.Timer != TimerRetransmit {
			return fmt.Errorf("paxos: %v: unknown timer %d", n.self, ev.Timer)
		}
		return nil
	}
	return fmt.Errorf("paxos: %v: unexpected event %v", n.self, ev)
}

// checkMessage rejects a message that q cannot have sent to this node: one
// for a role either lacks, a ballot not q's own, a value out of range.
func (n *Node) checkMessage(q core.Rank, m core.Message) error {
	c := n.cfg
	bad := func(why string) error { return fmt.Errorf("paxos: %v: %v from %v: %s", n.self, m, q, why) }
	switch m := m.(type) {
	case Request:
		if !n.r.proposer {
			return bad("not a proposer")
		}
		if m.Cmd.IsNoop() || !c.isProposer(m.Cmd.Origin) || len(m.Cmd.Data) > MaxData {
			return bad("not a proposer's command")
		}
		if !c.isProposer(q) {
			return bad("sender not a proposer")
		}
	case Prepare:
		if !n.r.acceptor {
			return bad("not an acceptor")
		}
		if m.B == 0 || c.Owner(m.B) != q {
			return bad("not the sender's ballot")
		}
	case Accept:
		if !n.r.acceptor {
			return bad("not an acceptor")
		}
		if m.B == 0 || c.Owner(m.B) != q {
			return bad("not the sender's ballot")
		}
		return n.checkCommand(m.V, bad)
	case Promise:
		if !n.r.proposer || !c.isAcceptor(q) {
			return bad("not from an acceptor to a proposer")
		}
		if m.B == 0 {
			return bad("ballot 0")
		}
		for i, v := range m.Votes {
			if v.B == 0 || v.Inst < m.From || i > 0 && v.Inst <= m.Votes[i-1].Inst {
				return bad("votes out of order or range")
			}
			if err := n.checkCommand(v.V, bad); err != nil {
				return err
			}
		}
	case Accepted:
		if !n.r.proposer && !n.r.learner || !c.isAcceptor(q) {
			return bad("not from an acceptor to a proposer or learner")
		}
		if m.B == 0 {
			return bad("ballot 0")
		}
		return n.checkCommand(m.V, bad)
	case Nack:
		if !n.r.proposer || !c.isAcceptor(q) {
			return bad("not from an acceptor to a proposer")
		}
		if m.B == 0 || m.Promised <= m.B {
			return bad("promised ballot not above the rejected one")
		}
	case Decided:
		if !n.r.proposer && !n.r.learner || !c.isProposer(q) {
			return bad("not from a proposer to a proposer or learner")
		}
		if len(m.Values) > MaxBatch {
			return bad("too many values")
		}
		for _, v := range m.Values {
			if err := n.checkCommand(v, bad); err != nil {
				return err
			}
		}
	case Learned:
		if !n.r.proposer || !c.isLearner(q) {
			return bad("not from a learner to a proposer")
		}
	default:
		return fmt.Errorf("paxos: %v: message %v (%T) is not a paxos message", n.self, m, m)
	}
	return nil
}

func (n *Node) checkCommand(v Command, bad func(string) error) error {
	if !n.cfg.valid(v) || len(v.Data) > MaxData {
		return bad("value " + v.String() + " not a proposer's command")
	}
	return nil
}

// waiting reports whether something waits for an answer that a loss may
// withhold, so that TimerRetransmit must be armed: a proposal not yet
// returned, or, at the coordinator, phase 1 without a quorum, an instance
// not chosen, or a live learner not known to have every chosen instance.
func (n *Node) waiting() bool {
	if len(n.pending) > 0 && n.leader != core.NoRank {
		return true
	}
	c := n.coord
	if c == nil {
		return false
	}
	if c.preparing {
		return true
	}
	for i := range c.slots {
		if !c.slots[i].chosen {
			return true
		}
	}
	return slices.ContainsFunc(n.cfg.Learners, func(l core.Rank) bool { return n.behind(l) })
}

// behind reports whether the coordinator must tell learner l of a chosen
// instance: l is not suspected and has not decided the chosen prefix.
func (n *Node) behind(l core.Rank) bool {
	p := n.chosenPrefix()
	if l == n.self {
		return uint64(len(n.log)) < p
	}
	i, _ := slices.BinarySearch(n.cfg.Learners, l)
	return !n.suspected.Has(l) && n.coord.acks[i] < p
}

// Clone returns a deep copy.
func (n *Node) Clone() core.Machine { return n.clone() }

func (n *Node) clone() *Node {
	c := *n
	c.accepted = slices.Clone(n.accepted)
	c.log = slices.Clone(n.log)
	c.suspected = n.suspected.Clone()
	c.pending = slices.Clone(n.pending)
	c.tallies = slices.Clone(n.tallies)
	for i := range c.tallies {
		c.tallies[i].voters = c.tallies[i].voters.Clone()
	}
	if n.coord != nil {
		k := *n.coord
		k.promises = k.promises.Clone()
		k.reported = slices.Clone(k.reported)
		k.slots = slices.Clone(k.slots)
		for i := range k.slots {
			k.slots[i].voters = k.slots[i].voters.Clone()
		}
		k.queue = slices.Clone(k.queue)
		k.acks = slices.Clone(k.acks)
		c.coord = &k
	}
	return &c
}

// String summarises the node on one line, e.g.
// `paxos p0 leader=p0 promised=1 accepted=[0:b1=p1:"x"] log=[p1:"x"] | coord b=1 from=0 slots=[p1:"x"✓]`.
func (n *Node) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "paxos %v leader=%v", n.self, n.leader)
	if n.r.acceptor {
		fmt.Fprintf(&b, " promised=%d accepted=%v", n.promised, votes(n.accepted))
	}
	if n.r.learner {
		fmt.Fprintf(&b, " log=%v", commands(n.log))
	}
	if !n.suspected.Empty() {
		fmt.Fprintf(&b, " suspected=%v", n.suspected)
	}
	if len(n.pending) > 0 {
		fmt.Fprintf(&b, " pending=%v", commands(n.pending))
	}
	if c := n.coord; c != nil {
		fmt.Fprintf(&b, " | coord b=%d from=%d", c.b, c.from)
		if c.preparing {
			fmt.Fprintf(&b, " preparing promises=%v reported=%v queue=%v", c.promises, votes(c.reported), commands(c.queue))
		}
		s := make([]string, len(c.slots))
		for i, sl := range c.slots {
			s[i] = sl.v.String()
			if sl.chosen {
				s[i] += "✓"
			}
		}
		fmt.Fprintf(&b, " slots=[%s]", strings.Join(s, " "))
	}
	return b.String()
}

func votes(vs []Vote) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}

func commands(cs []Command) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}
