package env

import "github.com/ftkernel/ftkernel/checker"

var _ checker.Independence[*World] = (*Model)(nil)

// Independent implements checker.Independence (partial-order reduction,
// checker.Options.POR). Two actions a and b, both enabled in s, are
// independent exactly when
//
//   - each is a Deliver, Detect, Call, Fire or Crash action (Lose, Clock,
//     Tick, Recover, DetectRecover and Duplicate are dependent with
//     everything: faults.go), and they are not both Crash;
//   - their processes a.P and b.P differ;
//   - neither is the delivery of a message sent by the other's process
//     (Deliver(P, Q, ·) is dependent with every action of Q, Crash(Q)
//     included);
//   - when a transition property of the model declares
//     checker.ReadsInputs, neither is a Call, and when one declares
//     checker.ReadsFailures, neither is a Crash;
//   - no transition property of the model declares checker.ReadsAnything;
//   - with Config.Hosts, neither is a Crash (a host's crash also crashes
//     the ranks it hosts, and a hosted rank's crash gives its host a
//     pending Detect under DetectorLocal: it touches other records).
//
// Why they commute (s·a·b and s·b·a have the same Encode, and each leaves
// the other enabled with the same meaning). A step of process P (Deliver,
// Detect, Call or Fire) reads and writes only P's own process record (node,
// detected set, calls made, awaiting flag, history, timers, and its inbox,
// from which a Deliver removes one message) and appends messages from P to
// other processes' inboxes; sends to crashed processes are dropped. Let b's
// process be R ≠ P.
//
//   - P's and R's own records are disjoint, so their node steps see the same
//     events in either order and produce the same effects.
//   - Inboxes: b may add messages from R to P's inbox, a messages from P to
//     R's inbox, and both may add to a third inbox (entries from P and from
//     R: different senders). Under Unordered an inbox is a multiset of
//     (sender, message) entries, so additions and one removal commute. A
//     Deliver (P, Q, I) names the I-th distinct message from Q in canonical
//     order: only messages from Q shift that index, and Q ≠ R is required,
//     so the label keeps its meaning. Under FIFO each (sender, receiver)
//     pair is its own queue and a Deliver takes the head of Q's queue;
//     again Q ≠ R (stronger than FIFO needs, since appending to a non-empty
//     queue leaves its head; kept for one rule in both networks).
//   - Crash(P) against a step of R: the crash marks P crashed and empties
//     P's inbox and timers, leaving P's node, history and calls. If R's step
//     sends to P first, the message is removed by the crash; after the
//     crash it is dropped: the same world. The crash does not touch R's
//     record (with LossOnCrash it only makes Lose actions enabled, which
//     does not change the encoding), and R's step does not change the crash
//     budget (only crashes do; two crashes are dependent since one may
//     spend the budget). A crash enables Detect actions and disables none
//     of R's actions, whose enabledness reads only R's record and, for
//     Detect, the crashed set, which only grows; a Deliver from P stays
//     enabled, but the sender rule makes it dependent anyway.
//   - The world's clock is untouched. Depth and the last step (LastActor,
//     LastEffects, LastAction) are not encoded.
//   - Under BoundedDelay a message is sent with deadline offset Δ and a
//     timer armed with its delay whatever the order, and only a Tick
//     (dependent with everything: it changes every process with something
//     pending) moves offsets; whether a Deliver or Fire is enabled depends
//     on its own process's record only.
//
// What transition properties may read (checker.ReadsStep for this model):
// the action; the acting process's node, history, calls made, detected set
// and timers, before and after the step (not its inbox); and the step's
// effects (LastEffects, LastActor). Not the sender's state: a property
// that wants "the sender was colored" checks it on the sender's own send
// step. None of these is changed by an independent action: the other
// action's process is not the actor. (The sender rule above is still
// needed here, for the labels: a step of Q may shift the index I of a
// Deliver(P, Q, I), and sleep sets carry labels from state to state.)
// checker.ReadsInputs adds the calls made by every process (Calls are then
// dependent with everything), checker.ReadsFailures the crashed set
// (Crashes are then dependent with everything). Properties must not read
// World.Depth.
func (m *Model) Independent(s *World, a, b checker.Action) bool {
	if a.P == b.P || !localKind(a.Kind) || !localKind(b.Kind) || m.reads&readsBlock != 0 {
		return false
	}
	if m.pl.host != nil && (a.Kind == Crash || b.Kind == Crash) {
		return false // a group crash touches its hosted ranks, a local one enables a Detect at the host
	}
	if a.Kind == Deliver && a.Q == b.P || b.Kind == Deliver && b.Q == a.P {
		return false
	}
	if a.Kind == Crash && (b.Kind == Crash || m.reads&checker.ReadsFailures != 0) ||
		b.Kind == Crash && m.reads&checker.ReadsFailures != 0 {
		return false
	}
	if m.reads&checker.ReadsInputs != 0 && (a.Kind == Call || b.Kind == Call) {
		return false
	}
	return true
}

// readsBlock is set by stepReads when a transition property reads anything.
const readsBlock checker.StepReads = 1 << 7

// stepReads is the union of what transition properties ps read (readsBlock
// for one that does not say).
func stepReads(ps []checker.Property[*World]) checker.StepReads {
	var r checker.StepReads
	for i := range ps {
		p := &ps[i]
		if p.Kind != checker.Transition {
			continue
		}
		if p.Reads == checker.ReadsAnything {
			r |= readsBlock
		}
		r |= p.Reads
	}
	return r
}

func localKind(k uint8) bool {
	return k == Deliver || k == Detect || k == Call || k == Fire || k == Crash
}
