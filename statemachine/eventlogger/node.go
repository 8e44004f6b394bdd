package eventlogger

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// Role is what a node is.
type Role uint8

const (
	// RoleClient is an application process's side of the logger: it
	// makes the calls; under Classic it embeds a proposer of the shared
	// sequence, under Parallel its own sequence's coordinator (and, in
	// Table 5.1's deployment, its co-located acceptor) and learner.
	RoleClient Role = iota + 1
	// RoleLogger is the centralized logger R0.
	RoleLogger
	// RoleReplica is a logger node of the Paxos loggers: under Classic a
	// replica (acceptor and learner, R0 the first coordinator), under
	// Parallel the host of one acceptor of every sequence.
	RoleReplica
)

// pending is a client's call in progress.
type pending struct {
	Op   Op
	ID   uint64 // save: the new id; remove-up-to, retrieve-since: the argument
	Data string // the command proposed (Paxos loggers)
	Inst uint64 // retrieve-since: the barrier's instance, once chosen
	Wait bool   // retrieve-since: the barrier returned, waiting for the entries
	// Remote: the entries come in a DETS message (centralized, Classic,
	// the mutant's read), not from the node's own learner (Parallel).
	Remote bool
	// Call is the call's number (1, 2, … over the process's life, its
	// Return's instance); 0 for the recovery read a restarted client
	// makes of its own (Algorithm 4, lines 49 and 61).
	Call uint64
}

// read is a LOGREQ a Classic replica answers once its log reaches Inst.
type read struct {
	From core.Rank
	Proc core.Rank
	ID   uint64
	Inst uint64
}

// Node is one process of a logger deployment (a core.Machine).
type Node struct {
	cfg  Config
	rank core.Rank
	role Role
	// seqs are the embedded consensus machines, of the sequences seqOf.
	seqs  []core.Machine
	seqOf []int
	// client
	nextID uint64 // ids given so far
	ops    uint64 // operations started, the recovery reads included (nonces)
	calls  uint64 // calls made
	inc    uint64 // incarnation: restarts so far
	cur    *pending
	// queued is a call made while the recovery read runs.
	queued core.Input
	// centralized logger: per process, the entries and the watermark
	logs    [][]Entry
	removed []uint64
	// Classic replica
	reads []read
}

// New returns process r of the deployment cfg in its initial state.
func New(r core.Rank, cfg Config) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if r < 0 || int(r) >= cfg.N() {
		return nil, fmt.Errorf("eventlogger: rank %d out of range 0 … %d", r, cfg.N()-1)
	}
	n := &Node{cfg: cfg, rank: r}
	switch {
	case int(r) < cfg.Procs:
		n.role = RoleClient
	case cfg.Kind == Centralized:
		n.role = RoleLogger
		n.logs = make([][]Entry, cfg.Procs)
		n.removed = make([]uint64, cfg.Procs)
	default:
		n.role = RoleReplica
	}
	for s := range cfg.Sequences() {
		g := cfg.Group(s)
		l, ok := g.Local(r)
		if !ok {
			continue
		}
		m, err := cfg.Consensus.New(g, l)
		if err != nil {
			return nil, err
		}
		n.seqs = append(n.seqs, m)
		n.seqOf = append(n.seqOf, s)
	}
	return n, nil
}

// NewAll returns the N nodes of cfg.
func NewAll(cfg Config) ([]*Node, error) {
	out := make([]*Node, cfg.N())
	for r := range out {
		n, err := New(core.Rank(r), cfg)
		if err != nil {
			return nil, err
		}
		out[r] = n
	}
	return out, nil
}

// Role is the node's role; Rank its rank; Config the deployment.
func (n *Node) Role() Role       { return n.role }
func (n *Node) Rank() core.Rank  { return n.rank }
func (n *Node) Config() Config   { return n.cfg }
func (n *Node) Busy() bool       { return n.cur != nil }
func (n *Node) LastID() uint64   { return n.nextID }
func (n *Node) Sequences() []int { return slices.Clone(n.seqOf) }

// Seq is the embedded machine of sequence s (nil if the node holds none).
func (n *Node) Seq(s int) core.Machine {
	if k := slices.Index(n.seqOf, s); k >= 0 {
		return n.seqs[k]
	}
	return nil
}

// Clone returns a deep copy.
func (n *Node) Clone() core.Machine { return n.clone() }

func (n *Node) clone() *Node {
	c := *n
	c.seqs = make([]core.Machine, len(n.seqs))
	for k, m := range n.seqs {
		c.seqs[k] = m.Clone()
	}
	c.seqOf = slices.Clone(n.seqOf)
	if n.cur != nil {
		p := *n.cur
		c.cur = &p
	}
	if n.logs != nil {
		c.logs = make([][]Entry, len(n.logs))
		for i, l := range n.logs {
			c.logs[i] = slices.Clone(l)
		}
		c.removed = slices.Clone(n.removed)
	}
	c.reads = slices.Clone(n.reads)
	return &c
}

// Step applies one event (core.Machine). On error the node is unchanged.
//
// An embedded machine leaves its state unchanged when its Step fails, and
// every event but a failure report steps at most one of them, before any
// change of the node's own fields that could fail: so only a failure
// report is run on a deep copy, and other events on a copy of the node's
// own fields (a Parallel logger node embeds one machine per application
// process, too many to copy at every step).
func (n *Node) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	if ev.Kind == core.EvSuspect || ev.Kind == core.EvRecovered {
		c := n.clone()
		res, err := c.step(ev, out)
		if err != nil {
			return out, err
		}
		*n = *c
		return res, nil
	}
	saved := *n
	if n.cur != nil {
		p := *n.cur
		saved.cur = &p
	}
	saved.reads = slices.Clone(n.reads)
	res, err := n.step(ev, out)
	if err != nil {
		*n = saved
		return out, err
	}
	return res, nil
}

var errImpossible = errors.New("eventlogger: impossible event")

func (n *Node) step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	var err error
	switch ev.Kind {
	case core.EvCall:
		return n.call(ev.Input, out)
	case core.EvReceive:
		switch m := ev.Msg.(type) {
		case Wrap:
			k := slices.Index(n.seqOf, int(m.Seq))
			if k < 0 {
				return out, fmt.Errorf("%w: %v for a sequence p%d does not hold", errImpossible, m, n.rank)
			}
			l, ok := n.cfg.Group(int(m.Seq)).Local(ev.From)
			if !ok {
				return out, fmt.Errorf("%w: %v from p%d, not in the group", errImpossible, m, ev.From)
			}
			if out, err = n.inner(k, core.Receive(l, m.M), out); err != nil {
				return out, err
			}
		case Msg:
			if out, err = n.receive(ev.From, m, out); err != nil {
				return out, err
			}
		default:
			return out, fmt.Errorf("%w: message %v", errImpossible, ev.Msg)
		}
	case core.EvSuspect, core.EvRecovered:
		for k, s := range n.seqOf {
			l, ok := n.cfg.Group(s).Local(ev.Peer)
			if !ok || l == n.local(k) {
				continue
			}
			e := core.Suspect(l)
			if ev.Kind == core.EvRecovered {
				e = core.Recovered(l)
			}
			if out, err = n.inner(k, e, out); err != nil {
				return out, err
			}
		}
	case core.EvRestart:
		for k := range n.seqs {
			if out, err = n.inner(k, core.Restart(), out); err != nil {
				return out, err
			}
		}
		if n.role == RoleClient && n.calls > 0 {
			// Algorithm 4, lines 49 and 61: a recovering process first
			// reads its determinants (el_recovery), through a quorum.
			if out, err = n.retrieve(0, 0, out); err != nil {
				return out, err
			}
		}
	case core.EvTimer:
		k := int(ev.Timer) - 1
		if k < 0 || k >= len(n.seqs) {
			return out, fmt.Errorf("%w: timer %d", errImpossible, ev.Timer)
		}
		if out, err = n.inner(k, core.Timer(n.cfg.Consensus.Timer()), out); err != nil {
			return out, err
		}
	default:
		return out, fmt.Errorf("%w: event kind %d", errImpossible, ev.Kind)
	}
	return n.progress(out), nil
}

func (n *Node) local(k int) core.Rank {
	l, _ := n.cfg.Group(n.seqOf[k]).Local(n.rank)
	return l
}

// inner steps embedded machine k with ev and carries out its effects:
// sends go to the members' global ranks, the timer becomes timer k+1, a
// return completes the client's call.
func (n *Node) inner(k int, ev core.Event, out []core.Effect) ([]core.Effect, error) {
	effs, err := n.seqs[k].Step(ev, nil)
	if err != nil {
		return out, err
	}
	g := n.cfg.Group(n.seqOf[k])
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			out = append(out, core.Send(g.Global[e.To], Wrap{Seq: uint32(n.seqOf[k]), M: e.Msg}))
		case core.EffSetTimer:
			e.Timer = uint64(k) + 1
			out = append(out, e)
		case core.EffReturn:
			if n.cur != nil && n.cur.Data != "" {
				if d, ok := n.cfg.Consensus.Command(e.Value); ok && d == n.cur.Data {
					out = n.returned(k, e.Instance, out)
				}
			}
		}
	}
	return out, nil
}

// returned: the command of the call in progress was chosen in instance i.
func (n *Node) returned(k int, i uint64, out []core.Effect) []core.Effect {
	switch n.cur.Op {
	case OpSave:
		n.nextID = n.cur.ID
		return n.done(Result{Op: OpSave, ID: n.cur.ID}, out)
	case OpRemove:
		return n.done(Result{Op: OpRemove, ID: n.cur.ID}, out)
	}
	// retrieve-since: the barrier is chosen in instance i; every instance
	// before it is what the read sees.
	n.cur.Inst, n.cur.Wait = i, true
	if n.cfg.Kind == Classic {
		n.cur.Remote = true
		for _, r := range n.cfg.LearnerRanks(0) {
			out = append(out, core.Send(r, Msg{K: MsgLogReq, Proc: n.rank, ID: n.cur.ID, Inst: i}))
		}
	}
	return out
}

func (n *Node) done(r Result, out []core.Effect) []core.Effect {
	c := n.cur
	n.cur = nil
	if c.Call == 0 {
		// The recovery read: the id counter continues after every
		// determinant the log holds (a save cut by the crash may have
		// been chosen), then the call made meanwhile starts.
		for _, e := range r.Entries {
			n.nextID = max(n.nextID, e.ID)
		}
		if q := n.queued; q != nil {
			n.queued = nil
			if n.cfg.Mutant == MutantDropQueuedCall {
				return out // the mutant: the call waits for ever
			}
			out, _ = n.start(q, n.calls, out)
		}
		return out
	}
	return append(out, core.Return(c.Call, r))
}

// progress finishes what waits on a learner's log: a Parallel client's
// read, a Classic replica's pending LOGREQs.
func (n *Node) progress(out []core.Effect) []core.Effect {
	if n.role == RoleClient && n.cur != nil && n.cur.Wait && !n.cur.Remote && n.cfg.Kind == Parallel {
		log := n.cfg.Consensus.Log(n.seqs[0])
		if uint64(len(log)) > n.cur.Inst {
			es := since(logOf(n.rank, log[:n.cur.Inst], n.fence()), n.cur.ID)
			out = n.done(Result{Op: OpRetrieve, ID: n.cur.ID, Entries: es}, out)
		}
	}
	if n.role == RoleReplica && len(n.reads) > 0 {
		log := n.cfg.Consensus.Log(n.seqs[0])
		k := 0
		for _, r := range n.reads {
			if uint64(len(log)) > r.Inst {
				es := since(logOf(r.Proc, log[:r.Inst], n.fence()), r.ID)
				out = append(out, core.Send(r.From, Msg{K: MsgDets, Proc: r.Proc, ID: r.ID, Inst: r.Inst, Entries: es}))
				continue
			}
			n.reads[k] = r
			k++
		}
		n.reads = n.reads[:k]
	}
	return out
}

func (n *Node) call(in core.Input, out []core.Effect) ([]core.Effect, error) {
	if _, ok := in.(Start); ok {
		var err error
		if len(n.seqs) > 0 && n.cfg.Coordinator(n.seqOf[0]) == n.rank {
			if out, err = n.inner(0, core.Call(n.cfg.Consensus.Lead()), out); err != nil {
				return out, err
			}
		}
		n.calls++
		return append(out, core.Return(n.calls, Result{Op: opStart})), nil
	}
	if n.role != RoleClient {
		return out, fmt.Errorf("%w: call %v at logger p%d", errImpossible, in, n.rank)
	}
	switch in.(type) {
	case Save, RemoveUpTo, RetrieveSince:
	default:
		return out, fmt.Errorf("%w: call %v", errImpossible, in)
	}
	if n.queued != nil || (n.cur != nil && n.cur.Call != 0) {
		return out, fmt.Errorf("%w: call %v while another is in progress", errImpossible, in)
	}
	n.calls++
	if n.cur != nil { // the recovery read runs: the call waits for it
		n.queued = in
		return out, nil
	}
	return n.start(in, n.calls, out)
}

// start starts call number k.
func (n *Node) start(in core.Input, k uint64, out []core.Effect) ([]core.Effect, error) {
	n.ops++
	switch c := in.(type) {
	case Save:
		n.cur = &pending{Op: OpSave, ID: n.nextID + 1, Call: k}
		if n.cfg.Kind == Centralized {
			return append(out, core.Send(n.logger(), Msg{K: MsgSave, ID: n.cur.ID, Det: c.Det})), nil
		}
		return n.propose(command{Op: OpSave, Proc: n.rank, Inc: n.inc, ID: n.cur.ID, Nonce: n.ops, Det: c.Det}, out)
	case RemoveUpTo:
		n.cur = &pending{Op: OpRemove, ID: c.ID, Call: k}
		if n.cfg.Kind == Centralized {
			return append(out, core.Send(n.logger(), Msg{K: MsgRemove, ID: c.ID})), nil
		}
		return n.propose(command{Op: OpRemove, Proc: n.rank, Inc: n.inc, ID: c.ID, Nonce: n.ops}, out)
	case RetrieveSince:
		return n.retrieve(c.ID, k, out)
	}
	return out, fmt.Errorf("%w: call %v", errImpossible, in)
}

// retrieve starts retrieve-since(id) as call k (0: the recovery read).
func (n *Node) retrieve(id, k uint64, out []core.Effect) ([]core.Effect, error) {
	n.cur = &pending{Op: OpRetrieve, ID: id, Call: k}
	switch {
	case n.cfg.Kind == Centralized:
		n.cur.Wait, n.cur.Remote, n.cur.Inst = true, true, n.ops
		return append(out, core.Send(n.logger(), Msg{K: MsgRetrieve, ID: id, Inst: n.ops})), nil
	case n.cfg.Mutant == MutantRetrieveOneAcceptor:
		s := n.seqOf[0]
		n.cur.Wait, n.cur.Remote, n.cur.Inst = true, true, n.ops
		return append(out, core.Send(n.cfg.OneAcceptor(s), Msg{K: MsgVotesReq, Seq: uint32(s), Proc: n.rank, ID: id, Inst: n.ops})), nil
	}
	return n.propose(command{Op: OpRetrieve, Proc: n.rank, Inc: n.inc, ID: id, Nonce: n.ops}, out)
}

func (n *Node) logger() core.Rank { return core.Rank(n.cfg.Procs) }

func (n *Node) propose(c command, out []core.Effect) ([]core.Effect, error) {
	// A Parallel client coordinates its own sequence: the first proposal
	// starts phase 1 there unless Start did it before.
	n.cur.Data = c.encode()
	return n.inner(0, core.Call(n.cfg.Consensus.Propose(n.cur.Data)), out)
}

func (n *Node) receive(from core.Rank, m Msg, out []core.Effect) ([]core.Effect, error) {
	switch n.role {
	case RoleLogger:
		if int(from) >= n.cfg.Procs {
			return out, fmt.Errorf("%w: %v from p%d, not an application process", errImpossible, m, from)
		}
		switch m.K {
		case MsgSave:
			if m.ID > n.removed[from] && !hasID(n.logs[from], m.ID) {
				n.logs[from] = insertEntry(n.logs[from], Entry{m.ID, m.Det})
			}
			return append(out, core.Send(from, Msg{K: MsgSaved, ID: m.ID})), nil
		case MsgRemove:
			n.removed[from] = max(n.removed[from], m.ID)
			n.logs[from] = since(n.logs[from], n.removed[from])
			return append(out, core.Send(from, Msg{K: MsgRemoved, ID: m.ID})), nil
		case MsgRetrieve:
			return append(out, core.Send(from, Msg{K: MsgDets, ID: m.ID, Inst: m.Inst, Entries: since(n.logs[from], m.ID)})), nil
		}
	case RoleReplica:
		switch m.K {
		case MsgLogReq:
			if n.cfg.Kind != Classic || int(from) >= n.cfg.Procs {
				break
			}
			n.reads = append(n.reads, read{From: from, Proc: m.Proc, ID: m.ID, Inst: m.Inst})
			return out, nil
		case MsgVotesReq:
			mach := n.Seq(int(m.Seq))
			if mach == nil {
				break
			}
			var ds []Decision
			for _, v := range n.cfg.Consensus.Votes(mach) {
				ds = append(ds, Decision{Data: v.Data, Cmd: v.Cmd})
			}
			return append(out, core.Send(from, Msg{K: MsgDets, Proc: m.Proc, ID: m.ID, Inst: m.Inst, Entries: since(logOf(m.Proc, ds, n.fence()), m.ID)})), nil
		}
	case RoleClient:
		if n.cur == nil {
			return out, nil // a late reply (a second replica's DETS)
		}
		switch {
		case m.K == MsgSaved && n.cur.Op == OpSave && m.ID == n.cur.ID:
			n.nextID = m.ID
			return n.done(Result{Op: OpSave, ID: m.ID}, out), nil
		case m.K == MsgRemoved && n.cur.Op == OpRemove && m.ID == n.cur.ID:
			return n.done(Result{Op: OpRemove, ID: m.ID}, out), nil
		case m.K == MsgDets && n.cur.Op == OpRetrieve && n.cur.Remote && m.ID == n.cur.ID && m.Inst == n.cur.Inst:
			if m.Entries == nil {
				m.Entries = []Entry{}
			}
			return n.done(Result{Op: OpRetrieve, ID: m.ID, Entries: m.Entries}, out), nil
		}
		return out, nil
	}
	return out, fmt.Errorf("%w: %v at p%d", errImpossible, m, n.rank)
}

// Recover is the node as it restarts after a crash (core.Recoverable):
// the embedded machines' Recover (Paxos keeps the acceptor's promise and
// votes, the ballot tried and the learner's log), the centralized
// logger's logs, and a client's counters (ids given, operations and calls
// made: Algorithm 4 has them from the checkpoint and the determinants it
// reads) with its incarnation one more; the call in progress, the queued
// call and pending reads are volatile. The runtime then steps it with
// core.Restart(): a client that had made calls starts its recovery read,
// and the calls made meanwhile wait for it.
func (n *Node) Recover() core.Machine {
	c := n.clone()
	c.cur, c.queued, c.reads = nil, nil, nil
	for k, m := range c.seqs {
		c.seqs[k] = m.(core.Recoverable).Recover()
	}
	if c.role == RoleClient {
		c.inc++
	}
	return c
}

// AppendBinary appends the canonical encoding of the state.
func (n *Node) AppendBinary(b []byte) []byte {
	b = append(b, byte(n.role))
	b = core.AppendUint(b, n.nextID)
	b = core.AppendUint(b, n.ops)
	b = core.AppendUint(b, n.calls)
	b = core.AppendUint(b, n.inc)
	if n.queued == nil {
		b = append(b, 0)
	} else {
		b = n.queued.AppendBinary(append(b, 1))
	}
	if n.cur == nil {
		b = append(b, 0)
	} else {
		b = append(b, byte(n.cur.Op))
		b = core.AppendUint(b, n.cur.ID)
		b = core.AppendString(b, n.cur.Data)
		b = core.AppendUint(b, n.cur.Inst)
		b = core.AppendBool(b, n.cur.Wait)
		b = core.AppendBool(b, n.cur.Remote)
		b = core.AppendUint(b, n.cur.Call)
	}
	b = core.AppendUint(b, uint64(len(n.logs)))
	for i, l := range n.logs {
		b = core.AppendUint(b, n.removed[i])
		b = core.AppendUint(b, uint64(len(l)))
		for _, e := range l {
			b = core.AppendString(core.AppendUint(b, e.ID), e.Det)
		}
	}
	b = core.AppendUint(b, uint64(len(n.reads)))
	for _, r := range n.reads {
		b = core.AppendUint(core.AppendUint(core.AppendUint(core.AppendInt(b, int64(r.From)), uint64(r.Proc)), r.ID), r.Inst)
	}
	for _, m := range n.seqs {
		b = core.AppendBytes(b, m.AppendBinary(nil))
	}
	return b
}

// String summarises the node.
func (n *Node) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "eventlogger %v p%d", n.cfg.Kind, n.rank)
	switch n.role {
	case RoleClient:
		fmt.Fprintf(&s, " client last_id=%d", n.nextID)
		if n.cur != nil {
			fmt.Fprintf(&s, " busy=%v(%d)", n.cur.Op, n.cur.ID)
		}
	case RoleLogger:
		for p, l := range n.logs {
			fmt.Fprintf(&s, " p%d:%v", p, Result{Op: OpRetrieve, ID: n.removed[p], Entries: l})
		}
	case RoleReplica:
		fmt.Fprintf(&s, " replica reads=%d", len(n.reads))
	}
	for k, m := range n.seqs {
		fmt.Fprintf(&s, " | s%d: %v", n.seqOf[k], m)
	}
	return s.String()
}

// Entries is the log of process p as this node knows it: the centralized
// logger's, or, for a node holding a learner of p's sequence, its decided
// log replayed (for the properties and the documentation's runs).
func (n *Node) Entries(p core.Rank) []Entry {
	if n.role == RoleLogger {
		return slices.Clone(n.logs[p])
	}
	if len(n.seqs) == 0 {
		return nil
	}
	k := 0
	if n.cfg.Kind == Parallel {
		if k = slices.Index(n.seqOf, int(p)); k < 0 {
			return nil
		}
	}
	return logOf(p, n.cfg.Consensus.Log(n.seqs[k]), n.fence())
}

// fence: commands of an older incarnation chosen after a newer one's are
// ignored (see logOf), unless the mutant no-incarnation-fence is on.
func (n *Node) fence() bool { return n.cfg.Mutant != MutantNoIncarnationFence }
