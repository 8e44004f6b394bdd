package env

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// The fault budgets (faults.go) checked as properties of every transition
// rather than assumed, as the timing rules are (delayprops.go): a model
// with restarts, losses or duplicates lists FaultProperties beside its
// own. Each holds in every mode (with no budget it checks that nothing is
// spent), and each is computed from the transition alone: the two worlds,
// the action and the step's effects, never from the code that enables
// actions. Each declares checker.ReadsStep: the counters it reads are
// changed only by Recover, Lose and Duplicate, which are dependent with
// every action, and the in-flight counts it compares are changed, for
// each receiver, by the step's own sends, take and crash, whatever
// independent step came before (a send to a process that crashed
// meanwhile is dropped and not counted).

// Names of the fault-budget properties.
const (
	PropRecoveries = "recoveries-within-budget"
	PropLosses     = "losses-within-budget"
	PropDuplicates = "duplicates-within-budget"
)

// FaultProperties are RecoveriesWithinBudget, LossesWithinBudget and
// DuplicatesWithinBudget under their standard names.
func FaultProperties() []checker.Property[*World] {
	return []checker.Property[*World]{
		RecoveriesWithinBudget(PropRecoveries, "at most Config.Recoveries restarts in a run, each of one crashed process, which restarts as its Recover() stepped with Restart (the environment's crash-recovery, checked on every step)"),
		LossesWithinBudget(PropLosses, "at most Config.Losses messages lost in a run under LossAny, each loss one copy (the environment's lossy channels, checked on every step)"),
		DuplicatesWithinBudget(PropDuplicates, "at most Config.Duplicates messages duplicated in a run, each one copy more, and no other step puts a message in flight that it did not send (the environment's channels, checked on every step)"),
	}
}

// RecoveriesWithinBudget is "at most R = Config.Recoveries restarts happen
// in a run (none under CrashStop), each the restart of one crashed
// process from its stable storage", a transition property. It fails a
// step after which more than R restarts are spent, a Recover(p) that does
// not spend exactly one restart, revive p and add one to its incarnation,
// or whose p is not its crashed node's Recover() stepped with Restart
// (same encoding and effects), with no detection and only the timers the
// restart armed; and any other step that spends a restart, revives a
// process or changes an incarnation.
func RecoveriesWithinBudget(name, doc string) checker.Property[*World] {
	return checker.Property[*World]{Name: name, Kind: checker.Transition, Doc: doc, Reads: checker.ReadsStep,
		CheckStep: func(prev *World, a checker.Action, next *World) error {
			budget := prev.m.cfg.Recoveries
			if next.Recoveries() > budget {
				return fmt.Errorf("%d restarts in the run, beyond the budget %d", next.Recoveries(), budget)
			}
			p := core.NoRank
			if a.Kind == Recover {
				p = core.Rank(a.P)
			}
			want := prev.Recoveries()
			if p != core.NoRank {
				want++
			}
			if next.Recoveries() != want {
				return fmt.Errorf("%s spent %d restarts, want %d", KindName(a.Kind), next.Recoveries()-prev.Recoveries(), want-prev.Recoveries())
			}
			for r := range core.Rank(prev.N()) {
				revived := prev.Crashed(r) && !next.Crashed(r)
				inc := next.Incarnation(r) - prev.Incarnation(r)
				if r == p {
					if !revived || inc != 1 {
						return fmt.Errorf("Recover(%v) revived it: %v, incarnation +%d, want true, +1", p, revived, inc)
					}
				} else if revived || inc != 0 {
					return fmt.Errorf("%s revived %v: %v, incarnation +%d", KindName(a.Kind), r, revived, inc)
				}
			}
			if p == core.NoRank {
				return nil
			}
			return restartedStable(prev, p, next)
		}}
}

// restartedStable checks that p restarted in next as its crashed node in
// prev recovers: Recover() stepped with Restart, nothing else.
func restartedStable(prev *World, p core.Rank, next *World) error {
	rec, ok := prev.Node(p).(core.Recoverable)
	if !ok {
		return fmt.Errorf("%v restarted, but its node %T is not a core.Recoverable", p, prev.Node(p))
	}
	node := rec.Recover().Clone()
	effs, err := node.Step(core.Restart(), nil)
	if err != nil {
		return fmt.Errorf("%v's Recover() refuses Restart: %v", p, err)
	}
	if got, want := next.Node(p).AppendBinary(nil), node.AppendBinary(nil); string(got) != string(want) {
		return fmt.Errorf("%v restarted as %v, want its stable state %v (Recover() stepped with Restart)", p, next.Node(p), node)
	}
	if !slices.EqualFunc(effs, next.LastEffects(), sameEffect) {
		return fmt.Errorf("%v's restart had effects %v, want %v", p, next.LastEffects(), effs)
	}
	var armed []uint64
	for _, e := range effs {
		if e.Kind == core.EffSetTimer {
			armed = append(armed, e.Timer)
		}
	}
	for q := range core.Rank(next.N()) {
		if next.Detected(p, q) {
			return fmt.Errorf("%v restarted knowing %v is dead: its new incarnation was told nothing yet", p, q)
		}
	}
	for _, id := range next.Timers(p) {
		if !slices.Contains(armed, id) {
			return fmt.Errorf("%v restarted with timer %d armed, which its restart did not arm", p, id)
		}
	}
	return nil
}

// sameEffect compares effects by kind, operands and message and value
// encodings.
func sameEffect(a, b core.Effect) bool {
	enc := func(x interface{ AppendBinary([]byte) []byte }) string {
		if x == nil {
			return ""
		}
		return string(x.AppendBinary(nil))
	}
	var am, bm, av, bv string
	if a.Msg != nil {
		am = enc(a.Msg)
	}
	if b.Msg != nil {
		bm = enc(b.Msg)
	}
	if a.Value != nil {
		av = enc(a.Value)
	}
	if b.Value != nil {
		bv = enc(b.Value)
	}
	return a.Kind == b.Kind && a.To == b.To && a.Instance == b.Instance && a.Peer == b.Peer &&
		a.Timer == b.Timer && a.Delay == b.Delay && am == bm && av == bv
}

// LossesWithinBudget is "at most L = Config.Losses messages are lost in a
// run under LossAny", a transition property (under the other Loss modes
// it checks that nothing is counted). It fails a step after which more
// than L losses are spent, a Lose under LossAny that does not spend
// exactly one and take exactly one copy from its sender out of its
// receiver's inbox, and any other step that spends a loss.
func LossesWithinBudget(name, doc string) checker.Property[*World] {
	return checker.Property[*World]{Name: name, Kind: checker.Transition, Doc: doc, Reads: checker.ReadsStep,
		CheckStep: func(prev *World, a checker.Action, next *World) error {
			budget := 0
			if prev.m.cfg.Loss == LossAny {
				budget = prev.m.cfg.Losses
			}
			if next.Lost() > budget {
				return fmt.Errorf("%d messages lost in the run, beyond the budget %d", next.Lost(), budget)
			}
			counted := a.Kind == Lose && prev.m.cfg.Loss == LossAny
			want := prev.Lost()
			if counted {
				want++
			}
			if next.Lost() != want {
				return fmt.Errorf("%s spent %d losses, want %d", KindName(a.Kind), next.Lost()-prev.Lost(), want-prev.Lost())
			}
			if counted {
				p, q := core.Rank(a.P), core.Rank(a.Q)
				if d := copiesFrom(prev, p, q) - copiesFrom(next, p, q); d != 1 {
					return fmt.Errorf("a Lose took %d copies from %v out of %v's inbox, want 1", d, q, p)
				}
			}
			return nil
		}}
}

// copiesFrom counts the copies in flight from q to p.
func copiesFrom(w *World, p, q core.Rank) int {
	if !p.Valid(w.N()) {
		return 0
	}
	in := w.proc(p).inbox
	lo, hi := senderRange(in, q)
	k := 0
	for _, e := range in[lo:hi] {
		k += int(e.n)
	}
	return k
}

var errDropAbsorbed = errors.New("the duplicates property counts messages: not with DropAbsorbed (an absorbed send is dropped)")

// DuplicatesWithinBudget is "at most D = Config.Duplicates messages are
// duplicated in a run, and no message is in flight that was not sent or
// duplicated", a transition property. It fails a step after which more
// than D duplicates are spent, a Duplicate that does not spend exactly one
// and add exactly one copy of the message it names, next to it, any other
// step that spends one, and every step after which some process has not
// exactly the copies in flight to it it had, less the one the step
// delivered or lost and all of them if the step crashed it, plus those
// the step sent to it (alive) and the one it duplicated. Not with
// Config.DropAbsorbed (every step fails).
func DuplicatesWithinBudget(name, doc string) checker.Property[*World] {
	return checker.Property[*World]{Name: name, Kind: checker.Transition, Doc: doc, Reads: checker.ReadsStep,
		CheckStep: func(prev *World, a checker.Action, next *World) error {
			if prev.m.cfg.DropAbsorbed {
				return errDropAbsorbed
			}
			budget := prev.m.cfg.Duplicates
			if next.Duplicated() > budget {
				return fmt.Errorf("%d messages duplicated in the run, beyond the budget %d", next.Duplicated(), budget)
			}
			want := prev.Duplicated()
			if a.Kind == Duplicate {
				want++
			}
			if next.Duplicated() != want {
				return fmt.Errorf("%s spent %d duplicates, want %d", KindName(a.Kind), next.Duplicated()-prev.Duplicated(), want-prev.Duplicated())
			}
			if a.Kind == Duplicate {
				msg, ok := prev.Message(a)
				if !ok {
					return fmt.Errorf("a Duplicate of a message not in flight")
				}
				p, q := core.Rank(a.P), core.Rank(a.Q)
				key := string(msg.AppendBinary(nil))
				if d := copiesOf(next, p, q, key) - copiesOf(prev, p, q, key); d != 1 {
					return fmt.Errorf("a Duplicate of %v from %v to %v added %d copies of it, want 1", msg, q, p, d)
				}
			}
			return conserved(prev, a, next)
		}}
}

// copiesOf counts the copies of the message encoded as key in flight from
// q to p.
func copiesOf(w *World, p, q core.Rank, key string) int {
	in := w.proc(p).inbox
	lo, hi := senderRange(in, q)
	k := 0
	for _, e := range in[lo:hi] {
		if e.key == key {
			k += int(e.n)
		}
	}
	return k
}

// conserved checks, for every process, that the copies in flight to it
// changed by what the step did to it.
func conserved(prev *World, a checker.Action, next *World) error {
	sent := map[core.Rank]int{}
	for _, e := range next.LastEffects() {
		if e.Kind == core.EffSend && e.To.Valid(next.N()) && !next.Crashed(e.To) {
			sent[e.To]++
		}
	}
	for r := range core.Rank(prev.N()) {
		before, after := 0, 0
		for _, e := range prev.proc(r).inbox {
			before += int(e.n)
		}
		for _, e := range next.proc(r).inbox {
			after += int(e.n)
		}
		want := before + sent[r]
		if !prev.Crashed(r) && next.Crashed(r) {
			want = sent[r]
		}
		if core.Rank(a.P) == r {
			switch a.Kind {
			case Deliver, Lose:
				want--
			case Duplicate:
				want++
			}
		}
		if after != want {
			return fmt.Errorf("%s left %d messages in flight to %v, want %d (%d before, %d sent to it)", KindName(a.Kind), after, r, want, before, sent[r])
		}
	}
	return nil
}
