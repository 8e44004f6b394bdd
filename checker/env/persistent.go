package env

import (
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

var _ checker.Persistent[*World] = (*Model)(nil)

// Persistent implements checker.Persistent (partial-order reduction in
// depth-first search, checker.Options.POR with checker.DepthFirst): it
// returns the enabled actions of a set S of processes, the smallest such
// set found over the candidates below, or nothing (expand fully).
//
// # The set
//
// An action belongs to the process it steps: a Deliver or Lose to its
// receiver P, a Crash, Detect, Call or Fire to its P. Clock and Tick belong
// to none; when one is enabled the world is expanded fully.
//
// For each live process p with an enabled action other than a Crash (under
// BoundedDelay: with an enabled action that is due now, see below), S
// starts as {p} and grows to a fixpoint:
//
//   - Crash rule. If the detector is on and some live process may crash
//     (a Fail rank, or any non-Survivor while the budget lasts), every
//     process that may crash joins S: a crash outside S would enable a
//     Detect at every live process of S. With the detector off, crashes
//     outside S are allowed although a crash outside S may spend the
//     budget a crash of S needs: two crashes commute whenever a path takes
//     both, which is all condition 1a of checker.Persistent asks (below).
//     Until 2026-11-24 every process that may crash also joined S when S
//     held one (test variant persistCrashAbsorbs): sound, but it left only
//     the Survivors outside S.
//   - May-send rule. Let A be the processes outside S that may act before
//     an action of S is taken: the live ones with an enabled action, and,
//     repeatedly, every live process some process of A may send to. Every
//     process of A that may send to a process of S joins S. "May send to"
//     is Config.MaySend (nil: everyone).
//   - Lost-sender rule (LossOnCrash only). A live sender of a message in
//     flight to S that may crash joins S: its crash would make a Lose of
//     that message enabled at S.
//
// T is the enabled actions of S, in the order of enabled. It is returned
// when it is a proper subset of enabled; among the candidates the smallest
// T wins (ties: the lowest p).
//
// "May send to" leaves out harmless messages (Config.MaySend): q may send
// to r only messages harmless to r when r cannot crash (World.MayCrash)
// and every message q may still send r is either absorbed by r's node
// (Absorber) in its state in s, or quiet at r: it emits nothing at r and
// commutes with every event of r enabled in s, in every state r's node
// reaches by harmless deliveries (Config.MaySend; soundness below, "Quiet
// deliveries").
//
// # Absorbed deliveries
//
// Before any set is grown: if an enabled Deliver b, at a live process p
// (which may crash), is of a message p's node absorbs (Absorber: a step with no
// effect that leaves the node as it is, in every state the node may
// reach), and the message cannot be lost (not LossOnCrash, or its sender
// is live and cannot crash), and, under BoundedDelay, b is due now, then
// T = {b}. Such deliveries (a masked duplicate, a correction message from
// a side already heard from) otherwise make the persistent set of their
// receiver hold all of them, and the search visits every subset of them
// delivered. Soundness below ("T = {b}").
//
// Without Config.MaySend nothing is returned: every process of A may then
// send to every live process, so S takes in every process with an enabled
// action. Cost: O(N²) calls of MaySend per world (each pair at most once)
// and O(N³) steps per candidate.
//
// The reduction is also off when a transition property
// reads anything (checker.ReadsAnything), when one reads the failures
// (checker.ReadsFailures) and a crash is still possible, and when one
// reads the inputs (checker.ReadsInputs) and a live process has a call
// left: those make crashes, respectively calls, dependent with every
// action (independence.go).
//
// # Soundness (checker.Persistent's contract)
//
// T = {b}, an absorbed delivery at p. Let w be a path from s that does
// not take b. Every action a of w is independent of b: an action of
// another process touches neither p's node nor b's message (it may add
// messages to p's inbox: under FIFO behind b's, which is a queue head, and
// a new copy of b's message leaves one for b); an action of p other than
// its crash (a Deliver of another message, a Fire, Call or Detect) sees
// p's node unchanged by b, since b leaves the node as it is, and b after a
// is still absorbed (absorbing is for good), so both orders end in the
// same world, with the same effects, and neither disables the other. b's
// message stays in p's inbox along w until p crashes, if it does (only b,
// a crash of p or a Lose removes it, and no Lose can happen), so b, the
// progress action (not a crash; enabled in no quiescent world), is
// enabled in every state of w before a crash of p (under BoundedDelay b is
// due, so no Tick happens there either). A crash c of p on w disables b,
// and condition 1b allows it because c absorbs b: taking b just before c
// ends, after c, in the world c alone reaches (the crash empties p's
// inbox, b changed nothing else), and c's verdicts are the same (it reads
// p's node, unchanged by b, and emits the same effects); b is then not
// enabled at the end of w, so 1a asks nothing of it. Verdicts: b has no effect and leaves p's record as it is
// (its inbox aside, which transition properties do not read), so a
// property reading the step sees the same record before and after b, and
// the effects of a are unchanged; the Absorber contract asks that every
// selected transition property passes an effect-free, node-preserving
// step, so b's verdict does not change either.
//
// Otherwise let w be a path from s, in the full graph, that takes no
// action of T.
//
// No process of S steps on w, but for deliveries of harmless messages
// (absorbed or quiet: the may-send relation may leave them out), which
// send nothing and arm no timer (an absorbed one changes no node, a quiet
// one may change its receiver's node). Its actions enabled in s are in T. A new
// action of q ∈ S needs one of: a message sent to q (Deliver, and Lose
// later); a crash (Detect under the detector; Lose of a message from the
// crashed sender under LossOnCrash); q's own step (a Call after a Return
// under Blocking, a Fire after q arms a timer); a Clock or a Tick (timers
// of Config.Wakeups, LockStepRounds' next round). By induction along w,
// only processes of A step on w: a process outside S steps only when it
// has an enabled action, which it had in s (it is in A) or got from a
// message of an earlier stepping process (in A, so it is in A; or a
// harmless message, whose delivery sends nothing), since
// crashes outside S do not happen under the detector and Clock and Tick
// do not happen (below). No process of A may send to S (the may-send rule)
// a message that is not harmless to S. An absorbed message to r ∈ S, which
// cannot crash, is delivered on w by a step that changes no node and
// sends nothing: it is independent of every action of T (of r's: they see
// the same node, and r absorbs it after them too; of other processes':
// different records), disables none of them and leaves T's progress action
// enabled.
//
// Quiet deliveries (Config.MaySend). A quiet message to
// r ∈ S is delivered on w by a step d that emits nothing. r takes no other step on w (its actions enabled in s are in T;
// it gets new ones only from harmless messages, which enable nothing, or
// from a Clock or a Tick, which do not happen on w), so r's node before d
// is reached from r's node in s by harmless deliveries: the quiet clause
// holds there. Let b ∈ T be an action of r (not a crash: r cannot crash),
// enabled before d (b = Crash(r): see below). b's event (a timer firing, a delivery of a message in
// flight in s, a call, a detection) and d's commute at the node: the same
// node after both orders, the same effects of b, none of d. In the record,
// d removes its own message and b its own message or timer, and d adds
// nothing (no effect), so both orders end in the same world, neither
// disables the other, and b's effects (the messages it sends, the timers
// it arms) are the same. By induction over the quiet deliveries of w, b
// moves in front of them all: b·w ends where w·b does (condition 1a, with
// every other action of w independent of b as below). The progress action
// of T stays enabled (d changes r's node, not the rest of its inbox or its
// timers). Verdicts: the quiet clause asks every transition property to
// pass d's step and to give b's step the same verdict whatever harmless
// messages r received before. If r may crash (then the model forgets
// crashed processes, and every node state r's node reaches by harmless
// deliveries has the Forget of r's node in s), b = Crash(r) ∈ T disables
// d, and absorbs the quiet deliveries of w (condition 1a's third
// respect): b·w' with w' = w less them is a path (the messages of w'
// to r are dropped at their send, since r is dead, and those in flight
// at b are removed by the crash either way), and it ends where w·b ends:
// r's node is the same Forget, its inbox empty, every other record as in
// w·b (d touched only r's node and its own message); b's verdicts are
// the same (the clause asks a step of r to get the same verdict whatever
// harmless messages r received), and each d left out passes every
// transition property. A crash outside S happens only when the
// detector is off, so no Detect appears; a Lose
// appears at S only if the sender of a message to S crashes on w, and
// such a sender is in S (lost-sender rule), whose actions are not taken,
// or the message was sent on w, hence harmless: its Lose steps no node
// and removes only that message, so it is independent of T's actions.
// T holds an action other than a Crash, of a process of S, which stays
// enabled along w (nothing changes that process's record), so the world's
// count of enabled non-crash actions stays positive and neither Clock nor
// LockStepRounds' Tick becomes enabled. Under BoundedDelay T holds an
// action that is due now (a message at its deadline, a due timer, a call,
// a detection); only a Tick moves deadlines, so it stays due, and a Tick
// is enabled only when nothing is due: no Tick on w either.
//
// Every action a of w is independent of every b ∈ T (Independence's
// conditions 1–3, actions as transitions: a Deliver is the delivery of one
// message, whatever its index), except when both are crashes, treated
// last. a steps a process q ∉ S, b a process p ∈ S
// (Lose included: it removes a message from its receiver's inbox and steps
// no node; its sender has crashed and never steps). Their records are
// disjoint, so their node steps see the same events in either order. b may
// add messages to q's inbox; a adds none to p's but messages harmless to
// p (q ∉ S may not send other messages to S, or q would be in S), whose
// deliveries were treated above. So b's delivery, if any, is of a message that a does
// not touch (when b delivers a message from q, q takes no step that sends
// to p: that is what Independence's sender rule protects, the index of b's
// message among q's, and it is kept here because q sends nothing to p),
// and a's delivery of a message from p is of a message b leaves in place
// (under FIFO b appends to p's queue to q: the head is unchanged). A crash
// of q and a step of p commute as in Independence (a message p sends to q
// is removed by the crash or dropped at send: the same world; under
// LossOnCrash a crash leaves its messages deliverable and only adds a
// Lose). Neither disables the other, since enabledness of a process's step
// reads only its own record and the crashed set, which a crash of q ∉ S
// extends only when no Detect follows (detector off). The verdicts of
// transition properties that read checker.ReadsStep (the action, the
// actor's record before and after, the effects) are unchanged: the other
// action does not touch the actor; ReadsInputs and ReadsFailures turn the
// reduction off where they would matter (above).
//
// Two crashes, a = Crash(q) on w and b = Crash(p) ∈ T (detector off): a
// may disable b by spending the last of the budget, so they are not
// independent, but condition 1a holds. If b is enabled at the end of w,
// the budget at s covers every budget crash of w·b; taking b first
// leaves enough for each crash of w, every other action of w is
// independent of b (above), and the world records the crashed set and the
// counts spent, not their order, so b·w ends where w·b does. Condition 1b
// holds because T's progress action is not a crash and is independent of
// every action of w. So T is persistent (condition 1).
//
// Progress (condition 2): T holds p's action other than a Crash; it is
// enabled in no quiescent world (Quiescent: only budget crashes are left)
// and does not undo a Stable violation (checker.Persistent).
func (m *Model) Persistent(s *World, enabled []checker.Action, buf []checker.Action) []checker.Action {
	// Without a relation every active process may send to every live one,
	// so S always takes in every process with an enabled action.
	// Config.Hosts: a host's crash takes its hosted ranks with it, which the
	// crash rule below does not follow; such models are not reduced.
	if m.reads&readsBlock != 0 || len(enabled) < 2 || m.cfg.MaySend == nil || m.pl.host != nil || m.faulty() {
		return buf // m.faulty(): not argued for restarts, budgeted losses and duplicates (faults.go)
	}
	n := m.cfg.N
	slab := make([]bool, 8*n) // one allocation for the per-process flags
	ps := persistScratch{
		live:  slab[0*n : 1*n],
		crash: slab[1*n : 2*n],
		acts:  slab[2*n : 3*n],
		cand:  slab[3*n : 4*n],
		in:    slab[4*n : 5*n],
		act:   slab[5*n : 6*n],
		row:   slab[6*n : 7*n],
	}
	best := slab[7*n : 8*n]
	anyCrash := false
	pending := false // a live process has calls left
	for q := range n {
		pr := s.proc(core.Rank(q))
		if !pr.live {
			continue
		}
		ps.live[q] = true
		if m.fail.Has(core.Rank(q)) || (m.budget(s) && !m.survive.Has(core.Rank(q))) {
			ps.crash[q], anyCrash = true, true
		}
		if int(pr.made) < len(m.sched[s.alt][q]) {
			pending = true
		}
	}
	if anyCrash && m.reads&checker.ReadsFailures != 0 || pending && m.reads&checker.ReadsInputs != 0 {
		return buf
	}
	for _, a := range enabled {
		if a.Kind == Clock || a.Kind == Tick || a.P < 0 || int(a.P) >= n {
			return buf
		}
		ps.acts[a.P] = true
		if a.Kind != Crash && (!m.timed() || m.dueNow(s, a) || persistMutant == mutNoDue) {
			ps.cand[a.P] = true
		}
	}
	if persistMutant != mutNoAbsorb {
		if a, ok := m.absorbed(s, enabled, ps.crash); ok {
			return append(buf, a)
		}
	}
	ps.m, ps.s = m, s
	ps.detector = m.cfg.Detector != DetectorNone
	ps.anyCrash = anyCrash
	found, bestN := false, len(enabled)
	for p := range n {
		if !ps.cand[p] {
			continue
		}
		set := ps.closure(p)
		k := 0
		for _, a := range enabled {
			if set[a.P] {
				k++
			}
		}
		if k < bestN {
			found, bestN = true, k
			copy(best, set)
		}
	}
	if !found {
		return buf
	}
	for _, a := range enabled {
		if best[a.P] {
			buf = append(buf, a)
		}
	}
	return buf
}

// Broken variants of the rules of Persistent, for the tests that show each
// rule is needed (persistent_test.go); persistMutant is None except while
// such a test runs.
const (
	mutNoCrashRule       mutant.Name = "persistent-no-crash-rule"
	mutNoDue             mutant.Name = "persistent-no-due-action"
	mutNoLostSender      mutant.Name = "persistent-no-lost-sender-rule"
	mutDirectSendersOnly mutant.Name = "persistent-direct-senders-only"
	mutAbsorbAny         mutant.Name = "persistent-absorb-any-delivery"
)

// mutNoAbsorb turns the absorbed-delivery rule off (not broken: a test
// shows what it saves).
const mutNoAbsorb mutant.Name = "persistent-no-absorb"

// persistCrashAbsorbs is not broken but conservative: the crash rule as
// it was before condition 1a (any process of S that may crash pulls in
// every process that may crash, detector or not), kept so that a test can
// show what the weaker condition saves.
const persistCrashAbsorbs mutant.Name = "persistent-crash-absorbs"

// persistAbsorbNoCrash is not broken but conservative: the absorbed-delivery
// rule as it was before condition 1b let a crash absorb T's progress action
// (the receiver must not be able to crash), kept so that a test can show
// what the weaker condition saves.
const persistAbsorbNoCrash mutant.Name = "persistent-absorb-no-crash"

var persistMutant mutant.Name

// persistScratch holds what Persistent computes once per world.
type persistScratch struct {
	m        *Model
	s        *World
	live     []bool // live processes
	crash    []bool // live processes that may crash
	acts     []bool // processes with an enabled action
	cand     []bool // processes that may start a set
	in, act  []bool // closure: the set S and the processes A
	row      []bool // row[q]: send[q] is filled
	detector bool
	anyCrash bool
	send     []bool // may-send matrix, send[q*n+r]; row q filled on first use
}

// maySend reports whether live process q may send to r (Config.MaySend;
// true without it).
func (ps *persistScratch) maySend(q, r int) bool {
	f := ps.m.cfg.MaySend
	if f == nil {
		return true
	}
	n := len(ps.live)
	if ps.send == nil {
		ps.send = make([]bool, n*n)
	}
	if !ps.row[q] {
		ps.row[q] = true
		for j := range n {
			ps.send[q*n+j] = f(ps.s, core.Rank(q), core.Rank(j))
		}
	}
	return ps.send[q*n+r]
}

// closure returns the set S grown from {p} by the rules of Persistent (in
// ps.in: valid until the next call).
func (ps *persistScratch) closure(p int) []bool {
	n := len(ps.live)
	in, act := ps.in, ps.act
	clear(in)
	in[p] = true
	for changed := true; changed; {
		changed = false
		if ps.anyCrash && persistMutant != mutNoCrashRule {
			absorb := ps.detector
			for q := range n {
				if persistMutant == persistCrashAbsorbs && in[q] && ps.crash[q] {
					absorb = true
				}
			}
			if absorb {
				for q := range n {
					if ps.crash[q] && !in[q] {
						in[q], changed = true, true
					}
				}
			}
		}
		// A: outside processes that may step before S does.
		for q := range n {
			act[q] = !in[q] && ps.live[q] && ps.acts[q]
		}
		for grew := persistMutant != mutDirectSendersOnly; grew; {
			grew = false
			for q := range n {
				if !act[q] {
					continue
				}
				for r := range n {
					if !act[r] && !in[r] && ps.live[r] && ps.maySend(q, r) {
						act[r], grew = true, true
					}
				}
			}
		}
		for q := range n {
			if !act[q] {
				continue
			}
			for r := range n {
				if in[r] && ps.maySend(q, r) {
					in[q], changed = true, true
					break
				}
			}
		}
		if ps.m.cfg.Loss == LossOnCrash && persistMutant != mutNoLostSender {
			for r := range n {
				if !in[r] || !ps.live[r] {
					continue
				}
				for _, e := range ps.s.proc(core.Rank(r)).inbox {
					if q := int(e.from); !in[q] && ps.crash[q] {
						in[q], changed = true, true
					}
				}
			}
		}
	}
	return in
}

// dueNow reports whether enabled action a must happen before the next Tick
// under BoundedDelay: a Deliver or Lose of a message at its deadline, a
// Call, a Detect or a Fire (enabled only when due).
func (m *Model) dueNow(s *World, a checker.Action) bool {
	switch a.Kind {
	case Call, Detect, Fire:
		return true
	case Deliver, Lose:
		in := s.proc(core.Rank(a.P)).inbox
		i, ok := findEntry(in, m.cfg.Network, core.Rank(a.Q), a.I)
		return ok && in[i].d == 0
	}
	return false
}

// NextRoundTimers lists p's timers armed for the next round under
// LockStepRounds, ascending (nil under the other timings; shared: do not
// modify). With Timers it is everything p has armed, which a MaySend
// relation must account for.
func (w *World) NextRoundTimers(p core.Rank) []uint64 { return slices.Clip(w.proc(p).next) }
