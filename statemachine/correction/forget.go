package correction

import (
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Forget is the state the model keeps of a crashed process (the
// environment's Forgetter, used by checker/env Config.ForgetCrashed): the
// rank, the cause of coloring (Via), the value it holds when colored and
// its send count; the flags, the turn and the six correction cursors are
// reset (flags 0, turn left, cursors 0). The receiver is unchanged.
//
// Why these (models/correction props.go, silent.go): a crashed process
// never steps again (PPoPP'19 §2.1: processes fail by crashing), so its
// cursors, stop distances and timers no longer influence any run; only
// the properties read it. Termination (BoundedMessages) reads every
// process's Sent and SendBound (a function of the rank and the Config);
// correction-colored-silent reads the actor's Via before and after every
// step, and the actor of a crash step is the crashed process, whose node
// after that step is the forgotten one; integrity reads Colored of a
// sending actor and non-faulty liveness of live processes only. The value
// is kept with the color it came with (the encoding writes it only for a
// colored process, so an uncolored one keeps 0). The message cache is
// rebuilt from these as DecodeNode does.
//
// Forget is a function of the node's state (its encoding, rank and
// Config), idempotent, and DecodeNode reads its encoding back.
func (n *Node) Forget() core.Machine {
	c := &Node{cfg: n.cfg, rank: n.rank, via: n.forgottenVia(), turn: Left, sent: n.sent}
	if c.via != Uncolored {
		c.value = n.value
	}
	c.msgs = c.decodedMsgs()
	return c
}

// ForgetMutants are deliberately wrong Forget variants, for the test that
// the forgetting guard (models/all TestForgetSoundness) catches a Forget
// that drops what a property reads. They are not protocol mutants: without
// forgetting they change nothing, so they are not in Mutants; a Config
// may name them (tests only).
var ForgetMutants = []mutant.Name{MutantForgetDropsCause}

// MutantForgetDropsCause makes Forget drop the cause of coloring (the
// forgotten node reads uncolored), which correction-colored-silent reads
// of the actor of a crash step.
const MutantForgetDropsCause = mutant.Name("forget-drops-cause")

// forgottenVia is MutantForgetDropsCause's hook in Forget: the cause kept.
func (n *Node) forgottenVia() Via {
	if n.cfg.Mutant == MutantForgetDropsCause {
		return Uncolored // mutant: the cause forgotten
	}
	return n.via
}
