package correction

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Via says how a process was colored.
type Via uint8

const (
	// Uncolored: not colored (yet).
	Uncolored Via = iota
	// ViaRoot: the root, colored by its Broadcast call.
	ViaRoot
	// ViaTree: colored by a dissemination (TREE or gossip) message.
	ViaTree
	// ViaCorrection: colored by a correction message.
	ViaCorrection
)

// String names the cause.
func (v Via) String() string {
	switch v {
	case Uncolored:
		return "uncolored"
	case ViaRoot:
		return "root"
	case ViaTree:
		return "tree"
	case ViaCorrection:
		return "correction"
	}
	return fmt.Sprintf("via(%d)", uint8(v))
}

// state flags
const (
	fParticipant uint8 = 1 << iota // colored by dissemination: takes part in correction
	fStartSeen                     // TimerStart fired
	fStarted                       // correction started
	fSlotArmed                     // TimerSendSlot armed
	fDelayArmed                    // TimerDelay armed
	fDelayDone                     // TimerDelay fired
	fAll         = 1<<iota - 1
)

// Node is one process of a Corrected Tree broadcast (a core.Machine).
type Node struct {
	cfg   *Config
	rank  core.Rank
	via   Via
	flags uint8
	turn  Dir
	// Correction cursors: the next distance to send to in each direction,
	// and the last distance (inclusive) that may be sent to.
	nextL, nextR int32
	limL, limR   int32
	// Nearest distance a correction message came from, per side (0: none).
	recvL, recvR int32
	value        Value
	msgs         *msgSet
	// sent counts the messages this process has sent (Termination).
	sent int32
}

// New is the initial state of process r. It fails on an invalid config
// (Config.Validate) or a rank outside 0 … P-1.
func New(cfg *Config, r core.Rank) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !r.Valid(cfg.Topology.P()) {
		return nil, fmt.Errorf("correction: rank %d out of range", r)
	}
	n := &Node{}
	n.init(cfg, r)
	return n, nil
}

// Nodes returns the initial states of all P processes (one allocation).
func Nodes(cfg *Config) ([]core.Machine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	P := cfg.Topology.P()
	ns := make([]Node, P)
	ms := make([]core.Machine, P)
	for r := range ns {
		ns[r].init(cfg, core.Rank(r))
		ms[r] = &ns[r]
	}
	return ms, nil
}

// init sets the correction cursors: every direction starts at distance 1;
// the last distance is d (capped at P-1) for the opportunistic variants
// (§3.1), P-1 for checked correction (it stops on messages, §3.1), and for
// delayed correction 1 on the left and none on the right until the delay
// has passed (§3.3); with Config.NoOverRoot no farther than the root
// (cutAtRoot).
func (n *Node) init(cfg *Config, r core.Rank) {
	P := int32(cfg.Topology.P())
	*n = Node{cfg: cfg, rank: r, turn: Left, nextL: 1, nextR: 1}
	switch cfg.Correction {
	case Opportunistic, OptimizedOpportunistic:
		d := min(int32(cfg.Distance), P-1)
		n.limL, n.limR = d, d
	case Checked:
		n.limL, n.limR = P-1, P-1
	case Delayed:
		n.limL = min(1, P-1)
	}
	n.cutAtRoot()
	n.mutateLimits() // mutant hook (mutants.go)
}

// Rank is the process's rank.
func (n *Node) Rank() core.Rank { return n.rank }

// Via says how (and whether) the process was colored.
func (n *Node) Via() Via { return n.via }

// Colored reports whether the process has the broadcast value.
func (n *Node) Colored() bool { return n.via != Uncolored }

// Value is the broadcast value the process holds (0 while uncolored).
func (n *Node) Value() Value { return n.value }

// Participant reports whether the process takes part in correction.
func (n *Node) Participant() bool { return n.flags&fParticipant != 0 }

// Reach is how far correction messages went: the farthest distance sent to
// on the left and on the right.
func (n *Node) Reach() (left, right int) { return int(n.nextL - 1), int(n.nextR - 1) }

// Heard is the nearest distance a correction message came from, on the
// left and on the right (0: none).
func (n *Node) Heard() (left, right int) { return int(n.recvL), int(n.recvR) }

// Config is the node's (shared, read-only) configuration.
func (n *Node) Config() *Config { return n.cfg }

// Clone returns an independent copy (the config and message cache are
// immutable and shared).
func (n *Node) Clone() core.Machine {
	c := *n
	return &c
}

func (n *Node) p() int32 { return int32(n.cfg.Topology.P()) }

// Sent is the number of messages the process has sent so far.
func (n *Node) Sent() int { return int(n.sent) }

// SendBound is the most messages the process may ever send (§2.1
// Termination): its tree children, plus at most P-1 correction messages in
// each ring direction, plus for delayed correction at most P-1 stop
// replies (one per right-going correction message received, and each
// sender sends to each distance once).
func (n *Node) SendBound() int {
	P := int(n.p())
	b := len(n.cfg.Topology.Children(n.rank))
	if n.cfg.Gossip != nil {
		b = n.cfg.Gossip.Rounds() // gossip replaces the tree sends
	}
	if n.cfg.Correction != NoCorrection {
		b += 2 * (P - 1)
	}
	if n.cfg.Correction == Delayed {
		b += P - 1
	}
	return b
}

// Step applies ev (see the package documentation and events.go). An event
// the node cannot take (a foreign message or input, a timer it did not arm,
// a broadcast at a non-root) is an error, and the state is then unchanged.
func (n *Node) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	start := len(out)
	out, err := n.step(ev, out)
	if err == nil {
		for _, e := range out[start:] {
			if e.Kind == core.EffSend {
				n.sent++
			}
		}
		if n.cfg.Compact {
			n.compact()
		}
	}
	return out, err
}
