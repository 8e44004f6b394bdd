package env_test

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// latch is a toy machine for the absorbed-delivery rule: it records the
// sender of the first PING it receives (first, 1 + rank; 0: none) and
// ignores every later one, which it therefore absorbs (env.Absorber). On
// its call it sends one PING to each of onCall. The first PING it takes
// decides its state, so its deliveries are not independent before that.
type latch struct {
	me     core.Rank
	onCall []core.Rank
	first  uint8
}

var _ env.Absorber = (*latch)(nil)

func (l *latch) Clone() core.Machine          { c := *l; return &c }
func (l *latch) AppendBinary(b []byte) []byte { return append(b, byte(l.me), l.first) }
func (l *latch) String() string               { return fmt.Sprintf("%v first=%d", l.me, l.first) }
func (l *latch) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		for _, q := range l.onCall {
			out = append(out, core.Send(q, ping{}))
		}
	case core.EvReceive:
		if l.first == 0 {
			l.first = uint8(ev.From) + 1
			out = append(out, core.Deliver(0, rankVal(ev.From)))
		}
	case core.EvSuspect:
	default:
		return out, fmt.Errorf("unexpected %v", ev)
	}
	return out, nil
}

// Absorbs: once a first PING is recorded, every PING is ignored for good.
func (l *latch) Absorbs(from core.Rank, msg core.Message) bool {
	_, ok := msg.(ping)
	return ok && l.first != 0
}

// latchToy: p1, p2 and p3 each call once and ping p0, a latch that never
// crashes; one crash of p1 … p3 is allowed (no detector). The three pings
// race for p0's first place; the two that lose are absorbed, in either
// order.
func latchToy() env.Config {
	sched := [][]core.Input{nil, {go_{}}, {go_{}}, {go_{}}}
	return env.Config{Name: "latch", N: 4, Schedules: [][][]core.Input{sched},
		Crashes: 1, Survivors: []core.Rank{0}, Detector: env.DetectorNone,
		NewNode: func(p core.Rank, n int) core.Machine {
			l := &latch{me: p}
			if p != 0 {
				l.onCall = []core.Rank{0}
			}
			return l
		},
		// A latch sends only on its call.
		MaySend: func(w *env.World, p, q core.Rank) bool {
			return len(w.PendingCalls(p)) > 0 && q == 0 && p != 0
		}}
}

// TestPersistentAbsorbedDeliveries: on the latch toy, the absorbed-delivery
// rule keeps every verdict and quiescent world (the guard) and visits fewer
// states than without it (PersistentNoAbsorb); on every toy it visits no
// more. The broken variant that takes any delivery alone is caught by
// TestPersistentRulesNeeded (on this toy).
func TestPersistentAbsorbedDeliveries(t *testing.T) {
	names, cfgs := toysWith(env.ToyMaySend)
	fewer := 0
	for _, name := range names {
		now, before := withAndWithout(t, name, cfgs[name], env.PersistentNoAbsorb)
		if now.ReducedStates > before.ReducedStates {
			t.Errorf("%s: %d states, more than the %d without the absorbed-delivery rule", name, now.ReducedStates, before.ReducedStates)
		}
		if now.ReducedStates < before.ReducedStates {
			fewer++
			t.Logf("%-20s states %5d unreduced, %5d without the rule, %5d with it", name, now.States, before.ReducedStates, now.ReducedStates)
		}
	}
	if fewer == 0 {
		t.Fatal("no toy gained from the absorbed-delivery rule")
	}
}

// rankVal is the value a latch delivers: the rank of its first sender.
type rankVal core.Rank

func (v rankVal) AppendBinary(b []byte) []byte { return core.AppendInt(b, int64(v)) }
func (v rankVal) String() string               { return fmt.Sprint(int64(v)) }

// TestPersistentAbsorbedAtCrashable: an absorbed delivery at a process that
// may crash is taken alone too (a crash absorbs it: condition 1b of
// checker.Persistent). On the latch toy with p0 crashable the guard holds
// (every verdict and quiescent world equal to the unreduced search's) and
// fewer states are visited than with the rule of before
// (PersistentAbsorbNoCrash); on every toy no more are.
func TestPersistentAbsorbedAtCrashable(t *testing.T) {
	names, cfgs := toysWith(env.ToyMaySend)
	c := latchToy()
	c.Name, c.Survivors = "latch-crashable", nil
	cfgs[c.Name] = c
	c2 := c
	c2.Name, c2.Crashes = "latch-crashable-2", 2
	cfgs[c2.Name] = c2
	names = append(names, c.Name, c2.Name)
	fewer := map[string]bool{}
	for _, name := range names {
		now, before := withAndWithout(t, name, cfgs[name], env.PersistentAbsorbNoCrash)
		if now.ReducedStates > before.ReducedStates {
			t.Errorf("%s: %d states, more than the %d of the rule of before", name, now.ReducedStates, before.ReducedStates)
		}
		if now.ReducedStates < before.ReducedStates {
			fewer[name] = true
			t.Logf("%-20s states %5d unreduced, %5d with the rule of before, %5d now", name, now.States, before.ReducedStates, now.ReducedStates)
		}
	}
	if !fewer["latch-crashable"] {
		t.Fatal("the latch toy with p0 crashable gained nothing from letting a crash absorb an absorbed delivery")
	}
}
