package abcast

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// noID marks a sequence number not yet known.
var noID = ID{Origin: core.NoRank}

// Node is one core member.
type Node struct {
	self core.Rank
	cfg  Config

	have      idSet // messages whose payload this member holds
	delivered idSet
	suspected core.RankSet

	// UB, BB: the numbers learnt (order[num]), the next number to deliver;
	// at the sequencer, the next number to assign and the messages numbered.
	order    []ID
	next     uint64
	counter  uint64
	numbered idSet
	reused   bool // MutantReuseNumber

	// Consensus: the consensus node, whether member 0 led, the messages
	// not yet proposed (member 0, arrival order), every member's arrival
	// order, the decisions held above next (the next instance to
	// deliver), the arrival index delivered early (mutant).
	cons    core.Machine
	led     bool
	queue   []ID
	arrival []ID
	held    []Decision
	early   int
}

var _ core.Machine = (*Node)(nil)

// New builds member p of the core cfg describes.
func New(p core.Rank, cfg Config) (*Node, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if !p.Valid(cfg.N) {
		return nil, fmt.Errorf("abcast: rank %v outside the core of %d", p, cfg.N)
	}
	n := &Node{self: p, cfg: cfg}
	if cfg.Variant == ConsensusBased {
		c, err := cfg.Consensus.New(cfg.N, p)
		if err != nil {
			return nil, err
		}
		n.cons = c
	}
	return n, nil
}

// Config returns the member's configuration.
func (n *Node) Config() Config { return n.cfg }

// Consensus returns the consensus node (nil outside the consensus variant).
func (n *Node) Consensus() core.Machine { return n.cons }

// Delivered reports whether id was delivered.
func (n *Node) Delivered(id ID) bool { return n.delivered.has(id) }

// Numbered reports whether the sequencer (UB, BB) has given id a number;
// false at any other member.
func (n *Node) Numbered(id ID) bool { return n.numbered.has(id) }

// Step applies ev. On error the state is unchanged.
func (n *Node) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		b, ok := ev.Input.(Broadcast)
		if !ok {
			return out, fmt.Errorf("abcast: %v: input %T is not an abcast.Broadcast", n.self, ev.Input)
		}
		id := ID{Origin: n.self, Seq: b.Seq}
		if int(b.Seq) >= n.cfg.Messages || n.have.has(id) {
			return out, fmt.Errorf("abcast: %v: %v: out of range or broadcast twice (messages=%d)", n.self, b, n.cfg.Messages)
		}
		return n.broadcast(id, out)
	case core.EvReceive:
		if !ev.From.Valid(n.cfg.N) {
			return out, fmt.Errorf("abcast: %v: message from %v (N=%d)", n.self, ev.From, n.cfg.N)
		}
		return n.receive(ev.From, ev.Msg, out)
	case core.EvSuspect:
		if !ev.Peer.Valid(n.cfg.N) || ev.Peer == n.self {
			return out, fmt.Errorf("abcast: %v: cannot suspect %v (N=%d)", n.self, ev.Peer, n.cfg.N)
		}
		return n.suspect(ev.Peer, out)
	}
	return out, fmt.Errorf("abcast: %v: unexpected event %v", n.self, ev)
}

func (n *Node) receive(q core.Rank, m core.Message, out []core.Effect) ([]core.Effect, error) {
	if err := n.checkMessage(m); err != nil {
		return out, fmt.Errorf("abcast: %v: %v from %v: %w", n.self, m, q, err)
	}
	switch m := m.(type) {
	case Msg:
		return n.recvMsg(m, out)
	case Seq:
		return n.recvSeq(m, out), nil
	case Decision:
		return n.recvDecision(m, out), nil
	}
	// checkMessage let only consensus messages through.
	effs, err := n.cons.Step(core.Receive(q, m), nil)
	if err != nil {
		return out, err
	}
	return n.consensusEffects(effs, out)
}

// checkMessage rejects a message this member's variant does not use or
// whose fields are out of range.
func (n *Node) checkMessage(m core.Message) error {
	valid := func(id ID) bool { return id.Origin.Valid(n.cfg.N) && int(id.Seq) < n.cfg.Messages }
	switch m := m.(type) {
	case Msg:
		if !valid(m.ID) || m.Num < NoNum || (m.Num != NoNum && n.cfg.Variant != BB) {
			return fmt.Errorf("bad MSG")
		}
	case Seq:
		if n.cfg.Variant == ConsensusBased || !valid(m.ID) {
			return fmt.Errorf("bad SEQ")
		}
	case Decision:
		if n.cfg.Variant != ConsensusBased {
			return fmt.Errorf("bad DECISION")
		}
		for _, id := range m.Batch {
			if !valid(id) {
				return fmt.Errorf("bad DECISION")
			}
		}
	default:
		if n.cons == nil || !n.cfg.Consensus.Owns(m) {
			return fmt.Errorf("not a message of abcast %v (%T)", n.cfg.Variant, m)
		}
	}
	return nil
}

// deliver delivers id. Each rule delivers a message once by
// construction (numbers and batches are disjoint); the two mutants that
// deliver early skip the messages they already delivered, so that what
// they break is the order alone.
func (n *Node) deliver(id ID, out []core.Effect) []core.Effect {
	if !n.delivered.add(id) && (n.is(MutantDeliverBeforeDecision) || n.is(MutantDeliverOnPayload)) {
		return out
	}
	return append(out, core.Deliver(id.Key(), id))
}

// Forget is the member's initial state (checker/env's Forgetter): what
// the properties read of a crashed member (its calls and deliveries) is
// in the environment's records, not in the node.
func (n *Node) Forget() core.Machine {
	f, err := New(n.self, n.cfg)
	if err != nil {
		panic(err) // n was built from the same configuration
	}
	return f
}

// Clone returns a deep copy.
func (n *Node) Clone() core.Machine {
	c := *n
	c.have, c.delivered, c.numbered = n.have.clone(), n.delivered.clone(), n.numbered.clone()
	c.suspected = n.suspected.Clone()
	c.order = slices.Clone(n.order)
	c.queue, c.arrival = slices.Clone(n.queue), slices.Clone(n.arrival)
	c.held = make([]Decision, len(n.held))
	for i, d := range n.held {
		c.held[i] = Decision{Inst: d.Inst, Batch: slices.Clone(d.Batch)}
	}
	if n.cons != nil {
		c.cons = n.cons.Clone()
	}
	return &c
}

// AppendBinary appends the canonical encoding of the state.
func (n *Node) AppendBinary(b []byte) []byte {
	b = n.have.appendBinary(b, n.cfg.N)
	b = n.delivered.appendBinary(b, n.cfg.N)
	b = n.suspected.AppendBinary(b)
	b = core.AppendUint(b, uint64(len(n.order)))
	for _, id := range n.order {
		b = id.AppendBinary(b)
	}
	b = core.AppendUint(core.AppendUint(b, n.next), n.counter)
	b = n.numbered.appendBinary(b, n.cfg.N)
	b = core.AppendBool(core.AppendBool(b, n.reused), n.led)
	for _, l := range [][]ID{n.queue, n.arrival} {
		b = core.AppendUint(b, uint64(len(l)))
		for _, id := range l {
			b = id.AppendBinary(b)
		}
	}
	b = core.AppendUint(b, uint64(len(n.held)))
	for _, d := range n.held {
		b = core.AppendUint(core.AppendUint(b, d.Inst), uint64(len(d.Batch)))
		for _, id := range d.Batch {
			b = id.AppendBinary(b)
		}
	}
	b = core.AppendInt(b, int64(n.early))
	if n.cons != nil {
		b = n.cons.AppendBinary(b)
	}
	return b
}

// String summarises the member for a person.
func (n *Node) String() string {
	s := fmt.Sprintf("abcast %v %v next=%d", n.cfg.Variant, n.self, n.next)
	if n.cfg.Variant == ConsensusBased {
		s += fmt.Sprintf(" arrived=%s", batchString(n.arrival))
		if n.self == Sequencer {
			s += fmt.Sprintf(" queue=%s", batchString(n.queue))
		}
		return s
	}
	var known []string
	for i, id := range n.order {
		if id != noID {
			known = append(known, fmt.Sprintf("#%d=%v", i, id))
		}
	}
	return s + fmt.Sprintf(" numbers=%v", known)
}
