package correction

import (
	"fmt"

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
// not send any messages" and "Any non-colored process receiving a
// correction message becomes colored and concludes the broadcast" (written
// for Corrected Gossip, whose correction starts after dissemination), and
// §3.3, for the overlapped correction of trees, "After receiving an early
// correction, a process still sends tree messages to its children … the
// processes receiving early correction do not participate in the
// correction phase themselves". Both agree that such a process never sends
// a correction message; they disagree on its tree messages. The default
// follows §3.3, the sentence written for the case (and the authors'
// simulator flogsim, whose tree phase sends to the children on any first
// message); EarlySilent is §3.1 read strictly, under which
// the subtree of a correction-colored process is left to the correction of
// others.
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
	// CoverStop adds flogsim's second stop rule to checked correction: a
	// participant also stops once the distances it has sent to on the left
	// and on the right add up to P or more (see coverStopped). Default off:
	// the paper's rule alone (§3.1).
	CoverStop bool
	// NoOverRoot keeps (optimized) opportunistic and checked correction
	// from sending across the root: the ring is cut between P-1 and 0, a
	// process sends left at most to rank 0 and right at most to rank P-1
	// (flogsim's send_over_root=false; see cutAtRoot). Default off: the
	// ring of §3.1 wraps around.
	NoOverRoot bool
	// Mutant selects a deliberately broken variant (tests only).
	Mutant mutant.Name
	// Compact makes every step forget what can no longer influence the
	// node's future behaviour (cursors of non-participants, the nearest
	// correction senders where no decision reads them, the state of
	// directions that are over): states that behave alike encode alike.
	// For exhaustive checking; Reach and Heard then report less.
	Compact bool
}

// Validate checks the configuration: a topology, a known correction with
// its parameter (d ≥ 1 for the opportunistic ones, a delay ≥ 1 for
// delayed), a known start mode and early rule, CoverStop only with checked
// correction, NoOverRoot only with checked and (optimized) opportunistic
// correction, and a gossip plan that fits.
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
	if c.CoverStop && c.Correction != Checked {
		return fmt.Errorf("correction: the cover stop rule is for checked correction, not %v", c.Correction)
	}
	if c.NoOverRoot && c.Correction != Checked && c.Correction != Opportunistic && c.Correction != OptimizedOpportunistic {
		return fmt.Errorf("correction: not sending over the root is for checked and opportunistic correction, not %v", c.Correction)
	}
	return c.validateGossip()
}
