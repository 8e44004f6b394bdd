package props

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// Irrevocability is "a process never decides, or returns, a second,
// different value for one instance": a transition over the actor's
// history (checker.ReadsStep). kept, if non-nil, is the model's own check
// of the actor's state after the step (for example that the protocol's
// Result variable still holds the decision); it is called with the live or
// dead actor p of a step that has one.
func Irrevocability(name, doc string, eq Eq, kept func(next *env.World, p core.Rank) error) checker.Property[*env.World] {
	eq = orSame(eq)
	return checker.Property[*env.World]{Name: name, Kind: checker.Transition, Doc: doc, Reads: checker.ReadsStep,
		CheckStep: func(prev *env.World, _ checker.Action, next *env.World) error {
			if err := HistoryIrrevocable(prev, next, eq); err != nil {
				return err
			}
			p := next.LastActor()
			if kept == nil || p == core.NoRank || !p.Valid(next.N()) {
				return nil
			}
			return kept(next, p)
		}}
}

// HistoryIrrevocable reports a decision or return made in the last step
// that differs from an earlier decision or return of the same process for
// the same instance. prev and next are the worlds before and after the
// step; eq compares values (nil: SameEncoding).
func HistoryIrrevocable(prev, next *env.World, eq Eq) error {
	eq = orSame(eq)
	p := next.LastActor()
	if p == core.NoRank || !p.Valid(next.N()) {
		return nil
	}
	old := prev.History(p)
	for _, e := range next.LastEffects() {
		if e.Kind != core.EffDecide && e.Kind != core.EffReturn {
			continue
		}
		for _, r := range old {
			if r.Kind == e.Kind && r.Instance == e.Instance && !eq(r.Value, e.Value) {
				return fmt.Errorf("%v had %s %v for a=%d and now %s %v", p, verb(r.Kind), r.Value, e.Instance, verb(e.Kind), e.Value)
			}
		}
	}
	return nil
}

func verb(k core.EffectKind) string {
	if k == core.EffReturn {
		return "returned"
	}
	return "decided"
}
