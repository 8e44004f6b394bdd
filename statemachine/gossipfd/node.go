package gossipfd

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// Node is the failure-detector module of one host (a core.Machine).
type Node struct {
	cfg       *Config
	self      core.Rank
	started   bool
	g         uint64       // rounds so far: gossip timer firings
	hb        []uint64     // heartbeat table, N entries; hb[self] = g
	lastInc   []uint64     // round of the last increase of each entry
	suspected core.RankSet // suspicions in their ping phase (§5.3)
	declared  core.RankSet // hosts declared failed (EffSuspect emitted)
}

// New builds the module of host self, not yet started. cfg is validated and
// then shared by the node (it must not change afterwards).
func New(self core.Rank, cfg *Config) (*Node, error) {
	if cfg == nil {
		return nil, fmt.Errorf("gossipfd: nil config")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !self.Valid(cfg.N) {
		return nil, fmt.Errorf("gossipfd: host %d out of range 0..%d", self, cfg.N-1)
	}
	return &Node{cfg: cfg, self: self, hb: make([]uint64, cfg.N), lastInc: make([]uint64, cfg.N)}, nil
}

// Self is the node's host.
func (n *Node) Self() core.Rank { return n.self }

// Config is the node's configuration (read-only).
func (n *Node) Config() *Config { return n.cfg }

// Started reports whether Start was called.
func (n *Node) Started() bool { return n.started }

// Round is the number of gossip rounds so far (g).
func (n *Node) Round() uint64 { return n.g }

// Heartbeat is hb[x], the largest heartbeat of x this node has seen.
func (n *Node) Heartbeat(x core.Rank) uint64 { return n.hb[x] }

// LastInc is the round in which hb[x] last increased (0: never).
func (n *Node) LastInc(x core.Rank) uint64 { return n.lastInc[x] }

// Staleness is g − lastInc[x], in rounds: what the cleanup check compares
// with T_cleanup.
func (n *Node) Staleness(x core.Rank) uint64 { return n.g - n.lastInc[x] }

// Suspected is the set of hosts suspected and still in their ping phase.
func (n *Node) Suspected() core.RankSet { return n.suspected.Clone() }

// Declared is the set of hosts declared failed.
func (n *Node) Declared() core.RankSet { return n.declared.Clone() }

// Suspects reports whether x is suspected or declared.
func (n *Node) Suspects(x core.Rank) bool { return n.suspected.Has(x) || n.declared.Has(x) }

// Step applies one event: the call Start, the gossip timer, a ping timer, or
// a GOSSIP, PING or PONG. Impossible events (another protocol's message or
// input, a sender out of range or the node itself, a table of the wrong
// length, a timer before Start or of an unknown id, a second Start, an
// EvSuspect: this machine is the detector) give an error and change nothing.
func (n *Node) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	if err := n.check(ev); err != nil {
		return out, err
	}
	switch ev.Kind {
	case core.EvCall:
		out = n.start(out)
	case core.EvTimer:
		if ev.Timer == TimerGossip {
			out = n.gossipRound(out)
		} else {
			out = n.pingExpired(core.Rank(ev.Timer-TimerPingBase), out)
		}
	case core.EvReceive:
		switch m := ev.Msg.(type) {
		case Gossip:
			n.merge(m.Table)
		case Ping:
			out = n.recvPing(ev.From, out)
		case Pong:
			n.recvPong(ev.From, m)
		}
	}
	return out, nil
}

// check rejects the impossible events, before anything changes.
func (n *Node) check(ev core.Event) error {
	switch ev.Kind {
	case core.EvCall:
		if _, ok := ev.Input.(Start); !ok {
			return fmt.Errorf("gossipfd: %v: input %T is not Start", n.self, ev.Input)
		}
		if n.started {
			return fmt.Errorf("gossipfd: %v started twice", n.self)
		}
	case core.EvTimer:
		if !n.started {
			return fmt.Errorf("gossipfd: %v: timer %d before Start", n.self, ev.Timer)
		}
		if ev.Timer != TimerGossip && (ev.Timer-TimerPingBase >= uint64(n.cfg.N) || !n.cfg.Ping) {
			return fmt.Errorf("gossipfd: %v: unknown timer %d", n.self, ev.Timer)
		}
	case core.EvReceive:
		if !ev.From.Valid(n.cfg.N) || ev.From == n.self {
			return fmt.Errorf("gossipfd: %v: message from %v", n.self, ev.From)
		}
		switch m := ev.Msg.(type) {
		case Gossip:
			if len(m.Table) != n.cfg.N {
				return fmt.Errorf("gossipfd: %v: table of %d entries for %d hosts", n.self, len(m.Table), n.cfg.N)
			}
		case Ping, Pong:
		default:
			return fmt.Errorf("gossipfd: %v: message %T of another protocol", n.self, ev.Msg)
		}
	case core.EvSuspect:
		return fmt.Errorf("gossipfd: %v: EvSuspect: the gossip module is the failure detector", n.self)
	default:
		return fmt.Errorf("gossipfd: %v: unknown event kind %d", n.self, ev.Kind)
	}
	return nil
}

// Clone returns a deep copy (the Config and Plan, immutable, are shared).
func (n *Node) Clone() core.Machine { return n.clone() }

func (n *Node) clone() *Node {
	c := *n
	c.hb = slices.Clone(n.hb)
	c.lastInc = slices.Clone(n.lastInc)
	c.suspected = n.suspected.Clone()
	c.declared = n.declared.Clone()
	return &c
}

// String summarises the state, e.g. "p2 g=9 hb=[8 8 9 9] suspected={p3} declared={p0,p1}".
func (n *Node) String() string {
	return fmt.Sprintf("%v g=%d hb=%v lastInc=%v suspected=%v declared=%v", n.self, n.g, n.hb, n.lastInc, n.suspected, n.declared)
}
