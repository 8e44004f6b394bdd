package env

import (
	"errors"
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// Action kinds (checker.Action.Kind). Operands:
//
//	Deliver  P receiver, Q sender, I index of the message among the distinct
//	         messages in flight from Q to P in canonical (byte) order;
//	         under FIFO only the queue head, I = 0.
//	Lose     same operands as Deliver; enabled with LossOnCrash for a
//	         crashed sender (under FIFO only the head: losing a later message
//	         first is indistinguishable to the receiver), and with LossAny for
//	         any message while Config.Losses lasts (under FIFO any entry of
//	         the queue, I its position: lossdup.go).
//	Crash    P crashes.
//	Detect   P learns that Q is dead.
//	Call     P makes its next call.
//	Fire     timer I (a core.Effect.Timer id) of P fires: P steps with
//	         core.Timer(I). Added after Call so that older traces keep
//	         their meaning.
//	Clock    the synchronized clock reaches the next Config.Wakeups entry:
//	         that timer is armed at every live process (no operands).
//	Tick     LockStepRounds: the next round begins: every timer armed for
//	         it fires from now on (no operands).
//	Recover  CrashRecovery: crashed P restarts from its stable storage
//	         (core.Recoverable) and steps with core.Restart() (recovery.go).
//	DetectRecover
//	         P learns that Q, which it was told is dead, has restarted: P
//	         steps with core.Recovered(Q).
//	Duplicate
//	         same operands as Lose under LossAny: one more copy of that
//	         message is in flight, next to it (lossdup.go).
const (
	Deliver uint8 = iota + 1
	Lose
	Crash
	Detect
	Call
	Fire
	Clock
	Tick
	Recover
	DetectRecover
	Duplicate
)

// KindName names an action kind: "deliver", "lose", "crash", "detect",
// "call", "fire", "clock", "tick", "recover", "detect-recover",
// "duplicate", or "kind(k)" for an unknown one.
func KindName(k uint8) string {
	switch k {
	case Deliver:
		return "deliver"
	case Lose:
		return "lose"
	case Crash:
		return "crash"
	case Detect:
		return "detect"
	case Call:
		return "call"
	case Fire:
		return "fire"
	case Clock:
		return "clock"
	case Tick:
		return "tick"
	case Recover:
		return "recover"
	case DetectRecover:
		return "detect-recover"
	case Duplicate:
		return "duplicate"
	}
	return fmt.Sprintf("kind(%d)", k)
}

// ErrNotEnabled is wrapped by Apply's error for an action that is not
// enabled in the state (or malformed).
var ErrNotEnabled = errors.New("env: action not enabled")

// ErrConfig is wrapped by every error New returns.
var ErrConfig = errors.New("env: invalid config")

// StepError is Apply's error when a node's Step fails (or panics, or emits an
// invalid effect): a bug of the protocol model, not of the explored system.
type StepError struct {
	Action checker.Action
	Rank   core.Rank  // the node that stepped
	Event  core.Event // what it was given
	Err    error
}

// Error says which node failed on which event, for which action.
func (e *StepError) Error() string {
	return fmt.Sprintf("env: %s %v: %v step on %q: %v", KindName(e.Action.Kind), e.Action, e.Rank, e.Event.String(), e.Err)
}

// Unwrap returns the node's error.
func (e *StepError) Unwrap() error { return e.Err }

func notEnabled(a checker.Action, why string) error {
	return fmt.Errorf("%w: %s p=%d q=%d i=%d: %s", ErrNotEnabled, KindName(a.Kind), a.P, a.Q, a.I, why)
}

// KindName names an action kind of the model's actions (checker.KindNamer:
// traces carry the names).
func (m *Model) KindName(k uint8) string { return KindName(k) }
