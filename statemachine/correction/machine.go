// Package correction is the Corrected Tree broadcast of Küttler et al.,
// "Corrected Trees for Reliable Group Communication" (PPoPP'19), as pure
// core.Machine nodes: an unreliable dissemination over an interleaved tree
// (§3.2) followed by a correction on the ring of ranks (§3.1, §3.3).
//
// # Events and effects
//
//   - EvCall(Broadcast{v}) at the root (rank 0) starts the broadcast: the
//     root delivers v and sends TREE messages to its children.
//   - EvReceive of a TREE message colors an uncolored process, which
//     delivers (core.Deliver, exactly once) and sends TREE to its children,
//     all in one step, in send order; the runtime serializes the sends.
//   - Correction messages are not emitted all at once: a machine that may
//     send another correction message arms the timer TimerSendSlot
//     (EffSetTimer, Delay 0) and sends one message per EvTimer(TimerSendSlot).
//     A LogP runtime fires that timer when the process's send port is free
//     (checker/logp: Options.SendSlotTimer), so that checked correction can
//     stop as soon as the stopping message has been received; any other
//     runtime may fire it at once.
//   - EvTimer(TimerStart) starts synchronized correction (the runtime's
//     synchronized clock); overlapped correction starts when the tree sends
//     are done (the first send slot after them).
//   - EvTimer(TimerDelay) ends the wait of delayed correction.
//
// Only processes colored by dissemination (or the root) take part in
// correction (§3.1: "Processes that become colored during correction do not
// send any messages"). A process colored early by a correction message
// (overlapped start) does what Config.Early says: by default (EarlyForwards,
// §3.3 literally) it still sends the tree messages to its children, at once,
// and never corrects; with EarlySilent (§3.1 taken strictly) it sends
// nothing, ever, also when its tree message arrives later.
//
// Ring order: correction sends go to r-1, r+1, r-2, r+2, … (left first, as
// in the proof of Lemma 2 and the example of §3.1).
package correction

import (
	"fmt"
	"math"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Timer identifiers (core.Event.Timer, core.Effect.Timer).
const (
	// TimerSendSlot: "call me back when I may send my next message".
	TimerSendSlot uint64 = 1
	// TimerStart: the synchronized start of correction.
	TimerStart uint64 = 2
	// TimerDelay: the delay of delayed correction has passed.
	TimerDelay uint64 = 3
)

// CorrectionKind selects the correction algorithm.
type CorrectionKind uint8

const (
	// NoCorrection: dissemination only.
	NoCorrection CorrectionKind = iota
	// Opportunistic (§3.1): send to r-1, r+1, …, r-d, r+d.
	Opportunistic
	// OptimizedOpportunistic (§3.3): as Opportunistic, but a message from
	// j = i+δ (0 < δ < d, from the right) tells i that j covers i+1 … j+d
	// and j-d … i-1: i sends nothing more to the right and to the left
	// only the distances d-δ+1 … d (symmetrically from the left).
	OptimizedOpportunistic
	// Checked (§3.1): alternate left and right; stop a direction once a
	// correction message has been received from a process in that
	// direction that this process has already sent to.
	Checked
	// Delayed (§3.3): send one message to the left, wait Config.Delay; if
	// no message came from the right meanwhile, send to the right (r+1,
	// r+2, …) until one does. A participant that receives a message from
	// the left replies at once, which stops the sender.
	Delayed
)

// String names the correction.
func (c CorrectionKind) String() string {
	switch c {
	case NoCorrection:
		return "none"
	case Opportunistic:
		return "opportunistic"
	case OptimizedOpportunistic:
		return "optimized-opportunistic"
	case Checked:
		return "checked"
	case Delayed:
		return "delayed"
	}
	return fmt.Sprintf("correction(%d)", uint8(c))
}

// StartMode says when correction starts.
type StartMode uint8

const (
	// Synchronized: at EvTimer(TimerStart), which the runtime delivers to
	// every process at the same time (§3.3).
	Synchronized StartMode = iota
	// Overlapped: right after the process's own tree sends (§3.3).
	Overlapped
)

// String names the mode.
func (s StartMode) String() string {
	if s == Overlapped {
		return "overlapped"
	}
	return "synchronized"
}

// EarlyRule says what a process whose first coloring message was a
// correction message does (§3.1, §3.3).
//
// Ambiguity: §3.1 says "Processes that become colored during correction do
// not send any messages", and §3.3, for overlapped correction, "After
// receiving an early correction, a process still sends tree messages to its
// children … processes receiving early correction do not participate in the
// correction phase themselves". Both agree that such a process never sends
// a correction message; they disagree on its tree messages. The default
// follows §3.3, the sentence written for the case (and the authors'
// simulator flogsim, whose tree phase sends to the children on any first
// message); EarlySilent is §3.1 read strictly (issue 10 §1).
type EarlyRule uint8

const (
	// EarlyForwards (§3.3): a process colored early by a correction
	// message sends its tree messages at once (overlapped start only) and
	// takes no part in correction.
	EarlyForwards EarlyRule = iota
	// EarlySilent (§3.1): a process colored by a correction message sends
	// nothing, ever, also when its tree message arrives later.
	EarlySilent
)

// String names the rule: "forwards" or "silent".
func (e EarlyRule) String() string {
	switch e {
	case EarlyForwards:
		return "forwards"
	case EarlySilent:
		return "silent"
	}
	return fmt.Sprintf("early(%d)", uint8(e))
}

// Config is shared, read-only, by all nodes of one broadcast.
type Config struct {
	// Topology is the dissemination tree (its P is the process count).
	Topology *Topology
	// Correction is the correction algorithm.
	Correction CorrectionKind
	// Distance is d of (optimized) opportunistic correction.
	Distance int
	// Start is synchronized or overlapped.
	Start StartMode
	// Delay is the wait of delayed correction, in the runtime's time unit.
	Delay uint64
	// Gossip, when set, replaces the tree by Corrected Gossip dissemination
	// (§3.1; gossip.go): the Topology then only gives P.
	Gossip *GossipPlan
	// Early says what a process colored by a correction message does
	// (EarlyForwards or EarlySilent; see EarlyRule).
	Early EarlyRule
	// Mutant selects a deliberately broken variant (tests only).
	Mutant mutant.Name
	// Compact makes every step forget what can no longer influence the
	// node's future behaviour (cursors of non-participants, the nearest
	// correction senders where no decision reads them, the state of
	// directions that are over): states that behave alike encode alike.
	// For exhaustive checking; Reach and Heard then report less.
	Compact bool
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if c == nil || c.Topology == nil {
		return fmt.Errorf("correction: config without topology")
	}
	switch c.Correction {
	case NoCorrection, Checked:
	case Opportunistic, OptimizedOpportunistic:
		if c.Distance < 1 {
			return fmt.Errorf("correction: %v needs distance d ≥ 1", c.Correction)
		}
	case Delayed:
		if c.Delay < 1 {
			return fmt.Errorf("correction: delayed correction needs a delay ≥ 1")
		}
	default:
		return fmt.Errorf("correction: unknown correction kind %d", c.Correction)
	}
	if c.Start > Overlapped {
		return fmt.Errorf("correction: unknown start mode %d", c.Start)
	}
	if c.Early > EarlySilent {
		return fmt.Errorf("correction: unknown early-correction rule %d", c.Early)
	}
	return c.validateGossip()
}

// Via says how a process was colored.
type Via uint8

const (
	Uncolored Via = iota
	ViaRoot
	ViaTree
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

// New is the initial state of process r.
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

func (n *Node) init(cfg *Config, r core.Rank) {
	P := int32(cfg.Topology.P())
	*n = Node{cfg: cfg, rank: r, turn: Left, nextL: 1, nextR: 1}
	switch cfg.Correction {
	case Opportunistic, OptimizedOpportunistic:
		d := min(int32(cfg.Distance), P-1)
		n.limL, n.limR = d, d
		if cfg.Mutant == MutantOpportunisticWraps && P > 1 {
			n.limR = min(int32(cfg.Distance), P) // mutant: P, not P-1 (ringDist wraps)
		}
		if cfg.Mutant == MutantOpportunisticLeftOnly {
			n.limR = 0
		}
	case Checked:
		n.limL, n.limR = P-1, P-1
	case Delayed:
		n.limL = min(1, P-1)
	}
}

// Rank is the process's rank.
func (n *Node) Rank() core.Rank { return n.rank }

// Via says how (and whether) the process was colored.
func (n *Node) Via() Via { return n.via }

// Colored reports whether the process has the broadcast value.
func (n *Node) Colored() bool { return n.via != Uncolored }

// Participant reports whether the process takes part in correction.
func (n *Node) Participant() bool { return n.flags&fParticipant != 0 }

// Reach is how far correction messages went: the farthest distance sent to
// on the left and on the right.
func (n *Node) Reach() (left, right int) { return int(n.nextL - 1), int(n.nextR - 1) }

// Heard is the nearest distance a correction message came from, on the
// left and on the right (0: none).
func (n *Node) Heard() (left, right int) { return int(n.recvL), int(n.recvR) }

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

// Step applies ev (see the package documentation).
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

// compact forgets what no later step reads (Config.Compact).
func (n *Node) compact() {
	if n.via == Uncolored {
		return
	}
	if n.flags&fParticipant == 0 || n.cfg.Correction == NoCorrection {
		// Non-participants never send correction messages.
		n.turn, n.nextL, n.nextR, n.limL, n.limR, n.recvL, n.recvR = Left, 1, 1, 0, 0, 0, 0
		return
	}
	switch n.cfg.Correction {
	case Opportunistic, OptimizedOpportunistic:
		n.recvL, n.recvR = 0, 0
	case Delayed:
		n.recvL = 0
		return // the right direction may open later: keep it as is
	}
	// A direction that is over stays over (Checked: the stopping condition
	// is monotone; Optimized: limits only shrink).
	for _, d := range [...]Dir{Left, Right} {
		next, lim, recv := &n.nextL, &n.limL, &n.recvL
		if d == Right {
			next, lim, recv = &n.nextR, &n.limR, &n.recvR
		}
		if !n.active(d) {
			*lim = *next - 1
			*recv = 0
		}
	}
	if !n.active(Left) || !n.active(Right) {
		n.turn = Left
	}
}

func (n *Node) step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		var v Value
		switch in := ev.Input.(type) {
		case Broadcast:
			v = in.Value
		case *Broadcast:
			if in == nil {
				return out, fmt.Errorf("correction: nil broadcast input")
			}
			v = in.Value
		default:
			return out, fmt.Errorf("correction: input %v is not a Broadcast", ev.Input)
		}
		if n.rank != 0 {
			return out, fmt.Errorf("correction: %v is not the root, cannot broadcast", n.rank)
		}
		if n.via != Uncolored {
			return out, fmt.Errorf("correction: broadcast started twice")
		}
		out = n.color(ViaRoot, newMsgSet(v), out)
		n.flags |= fParticipant
		out = n.sendTree(out)
		return n.afterTree(out), nil

	case core.EvReceive:
		m, ok := ev.Msg.(*Msg)
		if !ok || m == nil || m.set == nil {
			return out, fmt.Errorf("correction: foreign message %v", ev.Msg)
		}
		if !ev.From.Valid(int(n.p())) || ev.From == n.rank {
			return out, fmt.Errorf("correction: message from invalid sender %v", ev.From)
		}
		if m.kind == tagCorrection && m.dir != Left && m.dir != Right {
			return out, fmt.Errorf("correction: correction message without direction")
		}
		if m.kind == tagTree {
			if n.via != Uncolored {
				return out, nil // masked duplicate (§2.1)
			}
			out = n.color(ViaTree, m.set, out)
			n.flags |= fParticipant
			out = n.sendTree(out)
			return n.afterTree(out), nil
		}
		return n.onCorrection(ev.From, m, out), nil

	case core.EvTimer:
		switch ev.Timer {
		case TimerStart:
			if n.cfg.Start != Synchronized || n.flags&fStartSeen != 0 {
				return out, nil
			}
			n.flags |= fStartSeen
			n.uncoloredJoins() // mutant hook (mutants.go)
			if n.flags&fParticipant != 0 && n.flags&fStarted == 0 {
				out = n.start(out)
			}
			return out, nil
		case TimerSendSlot:
			if n.flags&fSlotArmed == 0 {
				return out, fmt.Errorf("correction: send slot timer not armed")
			}
			n.flags &^= fSlotArmed
			if n.flags&fStarted == 0 && n.cfg.Gossip != nil {
				return n.sendGossip(out), nil // the gossip phase (gossip.go)
			}
			if n.flags&fStarted == 0 {
				// Overlapped: the tree sends are done, correction starts.
				n.flags |= fStarted
			}
			return n.sendNext(out), nil
		case TimerDelay:
			if n.flags&fDelayArmed == 0 {
				return out, fmt.Errorf("correction: delay timer not armed")
			}
			n.flags = n.flags&^fDelayArmed | fDelayDone
			if n.recvR == 0 {
				n.limR = n.p() - 1
				out = n.armSlot(out)
			}
			return out, nil
		}
		return out, fmt.Errorf("correction: unknown timer %d", ev.Timer)
	}
	return out, fmt.Errorf("correction: unexpected event %v", ev)
}

func (n *Node) color(v Via, s *msgSet, out []core.Effect) []core.Effect {
	n.via = v
	n.msgs = s
	if n.cfg.Mutant == MutantRelayStaleValue && v != ViaRoot {
		n.msgs = newMsgSet(n.value) // mutant: relays the value held before
	}
	n.value = s.tree.value
	return append(out, core.Deliver(0, n.value))
}

func (n *Node) sendTree(out []core.Effect) []core.Effect {
	if n.cfg.Gossip != nil {
		return n.startGossip(out) // gossip.go
	}
	for _, c := range n.cfg.Topology.Children(n.rank) {
		out = append(out, core.Send(c, &n.msgs.tree))
	}
	return out
}

// afterTree: a participant has queued its tree sends.
func (n *Node) afterTree(out []core.Effect) []core.Effect {
	if n.cfg.Correction == NoCorrection {
		return out
	}
	if n.cfg.Start == Overlapped || n.flags&fStartSeen != 0 {
		return n.start(out)
	}
	return out
}

// start begins correction: the first message goes out at the next send
// slot (after the tree sends).
func (n *Node) start(out []core.Effect) []core.Effect {
	if n.cfg.Start == Synchronized {
		n.flags |= fStarted
	}
	return n.armSlot(out)
}

func (n *Node) armSlot(out []core.Effect) []core.Effect {
	if n.flags&fSlotArmed != 0 {
		return out
	}
	n.flags |= fSlotArmed
	return append(out, core.Effect{Kind: core.EffSetTimer, Timer: TimerSendSlot})
}

func (n *Node) stopped(d Dir) bool {
	switch n.cfg.Correction {
	case Checked:
		recv, next := n.recvL, n.nextL
		if d == Right {
			recv, next = n.recvR, n.nextR
		}
		if recv == 0 {
			return false
		}
		return n.cfg.Mutant == MutantCheckedStopEarly || next-1 >= recv
	case Delayed:
		return d == Right && n.recvR != 0
	}
	return false
}

func (n *Node) active(d Dir) bool {
	if d == Left {
		return n.nextL <= n.limL && !n.stopped(Left)
	}
	return n.nextR <= n.limR && !n.stopped(Right)
}

// sendNext sends the next correction message, if any, and arms the send
// slot if more may follow.
func (n *Node) sendNext(out []core.Effect) []core.Effect {
	if n.flags&fParticipant == 0 || n.cfg.Correction == NoCorrection {
		return out
	}
	aL, aR := n.active(Left), n.active(Right)
	if !aL && !aR {
		return out
	}
	P := n.p()
	if aL && (n.turn == Left || !aR) {
		to := (int32(n.rank) - n.ringDist(n.nextL) + P) % P
		n.nextL++
		n.turn = Right
		out = append(out, core.Send(core.Rank(to), &n.msgs.left))
	} else {
		to := (int32(n.rank) + n.ringDist(n.nextR)) % P
		n.nextR++
		n.turn = Left
		out = append(out, core.Send(core.Rank(to), &n.msgs.right))
	}
	if n.cfg.Correction == Delayed && n.flags&(fDelayArmed|fDelayDone) == 0 {
		n.flags |= fDelayArmed
		out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: TimerDelay, Delay: n.cfg.Delay})
	}
	if n.active(Left) || n.active(Right) {
		out = n.armSlot(out)
	}
	return out
}

func (n *Node) onCorrection(from core.Rank, m *Msg, out []core.Effect) []core.Effect {
	P := n.p()
	// A message sent to the Left comes from the receiver's right.
	var delta int32
	if m.dir == Left {
		delta = (int32(from) - int32(n.rank) + P) % P
		if n.recvR == 0 || delta < n.recvR {
			n.recvR = delta
		}
	} else {
		delta = (int32(n.rank) - int32(from) + P) % P
		if n.recvL == 0 || delta < n.recvL {
			n.recvL = delta
		}
	}
	if n.cfg.Correction == OptimizedOpportunistic {
		d := int32(n.cfg.Distance)
		if delta < d {
			if m.dir == Left { // j = i+δ covers i+1 … j+d and j-d … i-1
				n.limR = min(n.limR, n.nextR-1)
				n.nextL = max(n.nextL, d-delta+1)
			} else {
				n.limL = min(n.limL, n.nextL-1)
				n.nextR = max(n.nextR, d-delta+1)
			}
		}
	}
	if n.via == Uncolored {
		out = n.color(ViaCorrection, m.set, out)
		return n.coloredByCorrection(out)
	}
	out = n.redeliver(out) // mutant hook (mutants.go)
	if n.cfg.Correction == Delayed && m.dir == Right && n.flags&fParticipant != 0 {
		out = append(out, core.Send(from, &n.msgs.left)) // stop the sender
	}
	return out
}

// coloredByCorrection is the §3.1/§3.3 rule for a process whose first
// coloring message was a correction message: it never takes part in
// correction; with an overlapped start and EarlyForwards it still sends the
// tree messages to its children (§3.3), with EarlySilent nothing (§3.1).
// Its tree message, if it arrives later, is a masked duplicate.
func (n *Node) coloredByCorrection(out []core.Effect) []core.Effect {
	if n.cfg.Mutant == MutantColoredSends {
		return n.coloredSends(out) // mutant hook (mutants.go)
	}
	if n.cfg.Start == Overlapped && n.cfg.Early == EarlyForwards {
		out = n.sendTree(out)
	}
	return out
}

// AppendBinary appends the canonical encoding of the state.
func (n *Node) AppendBinary(b []byte) []byte {
	b = append(b, tagNode)
	b = core.AppendUint(b, uint64(n.rank))
	b = append(b, byte(n.via), n.flags, byte(n.turn))
	for _, x := range [...]int32{n.nextL, n.nextR, n.limL, n.limR, n.recvL, n.recvR, n.sent} {
		b = core.AppendUint(b, uint64(x))
	}
	if n.via != Uncolored {
		b = n.value.AppendBinary(b)
	}
	return b
}

// DecodeNode reads a state written by AppendBinary, for the given config.
// Malformed bytes are an error wrapping core.ErrMalformed, never a panic.
func DecodeNode(b []byte, cfg *Config) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	P := cfg.Topology.P()
	d := core.NewDecoder(b)
	if t := d.Byte(); d.Err() == nil && t != tagNode {
		d.Fail("bad node tag %d", t)
	}
	n := &Node{cfg: cfg}
	n.rank = d.Rank(P)
	n.via = Via(d.Byte())
	n.flags = d.Byte()
	n.turn = Dir(d.Byte())
	if d.Err() == nil {
		switch {
		case n.via > ViaCorrection:
			d.Fail("bad color cause %d", n.via)
		case n.flags&^uint8(fAll) != 0:
			d.Fail("bad flags %#x", n.flags)
		case n.turn != Left && n.turn != Right:
			d.Fail("bad turn %d", n.turn)
		}
	}
	for _, x := range [...]*int32{&n.nextL, &n.nextR, &n.limL, &n.limR, &n.recvL, &n.recvR} {
		v := d.Uint()
		if d.Err() == nil && v > uint64(P)+1 {
			d.Fail("counter %d over %d", v, P+1)
		}
		*x = int32(v)
	}
	if v := d.Uint(); d.Err() == nil && v > math.MaxInt32 {
		d.Fail("send count %d over %d", v, math.MaxInt32)
	} else {
		n.sent = int32(v)
	}
	if d.Err() == nil && n.via != Uncolored {
		n.value = Value(d.Uint())
		n.msgs = newMsgSet(n.value)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return n, nil
}

// String summarises the state.
func (n *Node) String() string {
	l, r := n.Reach()
	hl, hr := n.Heard()
	return fmt.Sprintf("%v %v participant=%t reach=(%d,%d) heard=(%d,%d)", n.rank, n.via, n.Participant(), l, r, hl, hr)
}
