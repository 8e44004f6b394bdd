package correction

import (
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// Corrected-broadcast nodes declare the messages they absorb (env's
// absorbed-delivery rule of persistent sets).
var _ env.Absorber = (*corrsm.Node)(nil)

// maySend is corrected broadcast's "may still send to" relation
// (env.Config.MaySend, used by persistent sets in depth-first search):
// statemachine/correction Node.MaySendTo, which reads it off the rules that
// send. In short: an uncolored process may send to anyone; a colored one
// sends only from its own timers (and delayed correction's stop replies),
// so a non-participant sends nothing more, and a participant of checked or
// (optimized) opportunistic correction only to the ring distances its
// active directions have not reached yet; a participant of delayed
// correction, or of Corrected Gossip before correction starts, to anyone.
//
// Messages the receiver absorbs are left out (env.Config.MaySend allows it
// when the receiver cannot crash, env.World.MayCrash): Node.MayDisturb
// asks the receiver, in its current state, whether it absorbs the
// correction messages the sender's active directions may still send it
// (Node.Absorbs: a side already heard from as near or nearer, or a checked
// direction that is over).
//
// Until 2026-11-24 a colored participant with a timer armed (or before the
// synchronized start's wakeup) was taken to send to anyone: during
// correction every active participant then depended on every other, and
// the persistent sets held them all.
//
// The mutants keep the relation sound: coloredSends makes a process a
// participant in its coloring step (MaySendTo reads the flag afterwards),
// uncoloredJoins acts on uncolored processes, the stop and limit mutants
// (stopEarly, mutateLimits, ringDist) are read through the same functions
// sendNext uses, redeliver-on-correction turns Absorbs off for correction
// messages, and the others change what is sent, not when. The guard
// (models/all TestPersistentSoundness) compares every mutant's
// depth-first search with and without the reduction.
func maySend(w *env.World, p, r core.Rank) bool {
	n, ok := w.Node(p).(*corrsm.Node)
	if !ok {
		return true
	}
	to, ok := w.Node(r).(*corrsm.Node)
	if !ok || w.MayCrash(r) {
		return n.MaySendTo(r)
	}
	return n.MayDisturb(to)
}

// maySendQuiet is maySend less the quiet messages (quiet.go): p may
// disturb r only with a message that is neither absorbed by r nor quiet at
// r, where r cannot crash, or may crash but the model forgets crashed
// processes (env.Config.MaySend).
func (qm *quietMemo) maySendQuiet(w *env.World, p, r core.Rank) bool {
	if !maySend(w, p, r) {
		return false
	}
	n, _ := w.Node(p).(*corrsm.Node)
	to, _ := w.Node(r).(*corrsm.Node)
	crashable := w.MayCrash(r)
	if n == nil || to == nil || crashable && !qm.forget && !quietCrashWithoutForget {
		return true
	}
	if _, ok := n.CorrectionsTo(r, nil); !ok {
		return true
	}
	var froms []core.Rank
	var cands []core.Message
	var own []int // the indices of p's messages in cands
	for q := range core.Rank(w.N()) {
		qn, _ := w.Node(q).(*corrsm.Node)
		if q == r || w.Crashed(q) || qn == nil {
			continue
		}
		msgs, ok := qn.CorrectionsTo(r, nil)
		if !ok {
			continue // q may send anything: it joins S if it may send to S
		}
		for _, m := range msgs {
			if !to.Absorbs(q, m) {
				if q == p {
					own = append(own, len(cands))
				}
				froms, cands = append(froms, q), append(cands, m)
			}
		}
	}
	if len(own) == 0 {
		return false // r absorbs every message p may still send it
	}
	mask := qm.quietSet(w, r, to, froms, cands, crashable)
	for _, i := range own {
		if mask&(1<<i) == 0 {
			return true
		}
	}
	return false
}
