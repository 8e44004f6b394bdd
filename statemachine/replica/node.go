package replica

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// PumpTimer is the timer id a replica arms to send the next message of its
// outbox (core.EvTimer): one network message per step.
const PumpTimer = 1

// Config is what every replica of a run shares: the rank layout, one
// program per logical process, and (tests only) a mutant.
type Config struct {
	Layout   Layout
	Programs []Program
	Mutant   mutant.Name
}

func (c *Config) validate() error {
	if c.Layout.Procs() == 0 {
		return fmt.Errorf("replica: config has no layout")
	}
	if len(c.Programs) != c.Layout.Procs() {
		return fmt.Errorf("replica: %d programs for %d logical processes", len(c.Programs), c.Layout.Procs())
	}
	for i, p := range c.Programs {
		if err := p.validate(i, c.Layout.Procs()); err != nil {
			return err
		}
	}
	if _, err := hooksFor(c.Mutant); err != nil {
		return err
	}
	return nil
}

// entry is a message of the backup table or the receive queue.
type entry struct {
	MID     MID
	Payload int64
}

// pending is one network message of the outbox: Data or Commit to To.
type pending struct {
	To  core.Rank
	Msg core.Message
}

// Node is one replica P_i^k. Its state is the program's (pc, accumulator),
// the MID clock, the view (replicas known dead), and the protocol's tables:
// backup and log (sending, §4.2), history and receive queue (reception),
// and the outbox of messages not yet handed to the network.
type Node struct {
	cfg       *Config
	h         *hooks
	self      core.Rank
	lp, idx   int // logical process and replica index
	started   bool
	pc        int
	acc       int64
	tick      uint64       // per-replica clock: sends and receives so far
	sendSeq   counters     // messages sent per (dst, tag) channel
	recvSeq   counters     // messages delivered per (src, tag) channel
	dead      core.RankSet // the view: replicas reported dead
	backup    []entry      // sorted by MID
	log       midSet       // MIDs committed by the master of lp
	history   midSet       // MIDs received
	queue     []entry      // received, not delivered, in arrival order
	outbox    []pending    // in sending order
	armed     bool         // PumpTimer armed
	delivered uint64       // deliveries so far (EffDeliver instances)
	outputs   uint64       // outputs so far (EffDecide instances)
	// sentData and sentCommit count the messages handed to the network,
	// for the message-cost property (§4.4).
	sentData, sentCommit uint64
}

var _ core.Machine = (*Node)(nil)

// New builds replica self of cfg in its initial state (not started). The
// Config is copied once per call; errors: an invalid program, layout,
// mutant or rank.
func New(self core.Rank, cfg Config) (*Node, error) {
	c := cfg
	c.Programs = slices.Clone(cfg.Programs)
	if err := c.validate(); err != nil {
		return nil, err
	}
	return newShared(self, &c)
}

// newShared builds replica self of a validated, shared config.
func newShared(self core.Rank, c *Config) (*Node, error) {
	lp, idx, ok := c.Layout.Of(self)
	if !ok {
		return nil, fmt.Errorf("replica: rank %v outside the layout of %d replicas", self, c.Layout.N())
	}
	h, err := hooksFor(c.Mutant)
	if err != nil {
		return nil, err
	}
	return &Node{cfg: c, h: h, self: self, lp: lp, idx: idx}, nil
}

// NewAll builds every replica of cfg, rank by rank, sharing one copy of
// the config.
func NewAll(cfg Config) ([]*Node, error) {
	c := cfg
	c.Programs = slices.Clone(cfg.Programs)
	if err := c.validate(); err != nil {
		return nil, err
	}
	out := make([]*Node, c.Layout.N())
	for r := range out {
		n, err := newShared(core.Rank(r), &c)
		if err != nil {
			return nil, err
		}
		out[r] = n
	}
	return out, nil
}

// Step applies one event (see the package documentation) and runs the
// program as far as it can go.
func (n *Node) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	if err := n.check(ev); err != nil {
		return out, err
	}
	// One network message per step: a step may emit the first message of
	// an empty outbox it fills, or, on PumpTimer, the next one.
	canEmit := len(n.outbox) == 0 || ev.Kind == core.EvTimer
	switch ev.Kind {
	case core.EvCall:
		n.started = true
	case core.EvReceive:
		switch m := ev.Msg.(type) {
		case Data:
			n.recvData(m)
		case Commit:
			n.recvCommit(m)
		}
	case core.EvSuspect:
		n.suspect(ev.Peer)
	case core.EvTimer:
		n.armed = false
	}
	return n.run(canEmit, out), nil
}

// check rejects impossible events, leaving the state unchanged.
func (n *Node) check(ev core.Event) error {
	L := n.cfg.Layout
	switch ev.Kind {
	case core.EvCall:
		if _, ok := ev.Input.(Start); !ok {
			return fmt.Errorf("replica %v: unknown call %v", n.self, ev.Input)
		}
		if n.started {
			return fmt.Errorf("replica %v: started twice", n.self)
		}
	case core.EvReceive:
		from, _, ok := L.Of(ev.From)
		if !ok || ev.From == n.self {
			return fmt.Errorf("replica %v: message from %v, not another replica", n.self, ev.From)
		}
		switch m := ev.Msg.(type) {
		case Data:
			if int(m.MID.Dst) != n.lp || int(m.MID.Src) != from || m.MID.Src < 0 || int(m.MID.Src) >= L.Procs() {
				return fmt.Errorf("replica %v of P%d: %v from %v (of P%d) is not addressed here", n.self, n.lp, m, ev.From, from)
			}
		case Commit:
			if from != n.lp || int(m.MID.Src) != n.lp {
				return fmt.Errorf("replica %v of P%d: %v from %v (of P%d) is not a commit of its group", n.self, n.lp, m, ev.From, from)
			}
		default:
			return fmt.Errorf("replica %v: message %v of another protocol", n.self, ev.Msg)
		}
	case core.EvSuspect:
		if _, _, ok := L.Of(ev.Peer); !ok || ev.Peer == n.self {
			return fmt.Errorf("replica %v: suspicion of %v, not another replica", n.self, ev.Peer)
		}
	case core.EvTimer:
		if ev.Timer != PumpTimer || !n.armed {
			return fmt.Errorf("replica %v: timer %d is not armed", n.self, ev.Timer)
		}
	default:
		return fmt.Errorf("replica %v: unknown event kind %d", n.self, ev.Kind)
	}
	return nil
}

// run sends the next outbox message (if canEmit), arms PumpTimer for the
// rest, and otherwise executes the program until it blocks at a Recv or
// ends. Local instructions and the choice of a send's messages happen in
// the step that reaches them.
func (n *Node) run(canEmit bool, out []core.Effect) []core.Effect {
	prog := n.cfg.Programs[n.lp]
	for {
		if len(n.outbox) > 0 {
			if canEmit {
				canEmit = false
				p := n.outbox[0]
				n.outbox = slices.Clone(n.outbox[1:])
				out = append(out, core.Send(p.To, p.Msg))
				if _, ok := p.Msg.(Data); ok {
					n.sentData++
				} else {
					n.sentCommit++
				}
				continue
			}
			if !n.armed {
				n.armed = true
				out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: PumpTimer, Delay: 1})
			}
			return out
		}
		if !n.started || n.pc >= len(prog) {
			return out
		}
		in := prog[n.pc]
		switch in.Op {
		case OpSend:
			n.sendStep(in)
		case OpRecv:
			var ok bool
			if out, ok = n.recvStep(in, out); !ok {
				return out
			}
		case OpCompute:
			n.acc = in.Fn.Apply(n.acc, in.K)
			n.pc++
		case OpOutput:
			out = append(out, core.Decide(n.outputs, Output{V: n.acc}))
			n.outputs++
			n.pc++
		}
	}
}

// master is the master of logical process j in this replica's view.
func (n *Node) master(j int) core.Rank {
	L := n.cfg.Layout
	for k := 0; k < L.Degree(j); k++ {
		if r := L.Rank(j, k); !n.dead.Has(r) {
			return r
		}
	}
	return core.NoRank
}

// live is the set of replicas of logical process j not known dead.
func (n *Node) live(j int) []core.Rank {
	var out []core.Rank
	n.cfg.Layout.Replicas(j).Each(func(r core.Rank) {
		if !n.dead.Has(r) {
			out = append(out, r)
		}
	})
	return out
}

// Clone returns a deep copy (tables are never written in place, so the
// copy shares only immutable slices and the config).
func (n *Node) Clone() core.Machine {
	c := *n
	c.dead = n.dead.Clone()
	return &c
}

// String summarises the replica, such as
// "p1=P1^0 pc=3 acc=5 tick=2 backup=0 log=1 history=1 queue=0 outbox=0".
func (n *Node) String() string {
	return fmt.Sprintf("%v=P%d^%d pc=%d acc=%d tick=%d dead=%v backup=%d log=%d history=%d queue=%d outbox=%d",
		n.self, n.lp, n.idx, n.pc, n.acc, n.tick, n.dead, len(n.backup), len(n.log), len(n.history), len(n.queue), len(n.outbox))
}
