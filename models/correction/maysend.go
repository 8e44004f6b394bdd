package correction

import (
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// maySend is corrected broadcast's "may still send to" relation
// (env.Config.MaySend, used by persistent sets in depth-first search). A
// process that may still send is taken to send to anyone (its tree
// children, gossip partners and ring neighbours at any distance cover
// nearly everyone); what the relation knows is when a process has sent its
// last message. A colored process p sends nothing more when
//
//   - it has no timer armed (env.World.Timers, and NextRoundTimers under
//     lock-step rounds): every send of a colored process happens on
//     a step it takes itself, and after coloring only a timer starts one
//     (statemachine/correction: sendNext and sendGossip run on
//     TimerSendSlot, onDelay re-opens the right direction on TimerDelay;
//     the tree sends and coloredByCorrection's happen in the coloring
//     step; a TREE or gossip message to a colored process is masked,
//     onTree; a correction message records its sender, heard and
//     narrowOptimized, and sends only delayed correction's stop reply,
//     stopReply, whose replyAny mutant acts in the coloring step);
//   - it is not a participant of delayed correction (stopReply answers
//     a correction message from the left at any time, without a timer);
//   - if it is a participant, the synchronized start's wakeup
//     (TimerStart, armed by the environment's Clock) has been armed
//     already or there is none: onStart may start its correction.
//     A colored non-participant ignores TimerStart (uncoloredJoins
//     acts on uncolored processes only).
//
// An uncolored process may send to anyone. The mutants keep this:
// coloredSends makes a process a participant in its coloring step,
// uncoloredJoins acts on uncolored processes, the others change what is
// sent, not when. The guard (models/all TestPersistentSoundness) compares
// every mutant's depth-first search with and without the reduction.
func maySend(syncStart bool) func(w *env.World, p, r core.Rank) bool {
	return func(w *env.World, p, r core.Rank) bool {
		n, ok := w.Node(p).(*corrsm.Node)
		if !ok || !n.Colored() || len(w.Timers(p)) > 0 || len(w.NextRoundTimers(p)) > 0 {
			return true
		}
		if !n.Participant() {
			return false
		}
		return n.Config().Correction == corrsm.Delayed || syncStart && w.Clocks() == 0
	}
}
