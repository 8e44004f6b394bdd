package props

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// Agreement is "no two processes have decided differently for one
// instance", over the EffDecide records of the histories (a process's
// first decision per instance; deciding twice is Irrevocability's).
//
// Non-uniform (uniform false): only live processes are compared. Crashes
// only remove processes from the comparison, so a disagreement among live
// processes can first appear only at a decision: the property is a
// transition checked on the decisions of each step against every other
// live process's decisions (checker.ReadsState, Stable). Exactly: the step
// fails ⇒ Bad(next), and ¬Bad(prev) ∧ Bad(next) ⇒ the step fails (only the
// actor's records are new).
//
// Uniform: dead processes count too; an invariant over all histories
// (Stable: histories only grow).
//
// eq compares values (nil: SameEncoding). The error names both processes,
// both values and the instance ("… for a=N").
func Agreement(name, doc string, uniform bool, eq Eq) checker.Property[*env.World] {
	eq = orSame(eq)
	if uniform {
		return checker.Property[*env.World]{Name: name, Kind: checker.Invariant, Doc: doc, Stable: true,
			Check: func(w *env.World) error { return agreement(w, true, eq) }}
	}
	return checker.Property[*env.World]{Name: name, Kind: checker.Transition, Doc: doc,
		CheckStep: func(_ *env.World, _ checker.Action, next *env.World) error { return newAgreement(next, eq) },
		Reads:     checker.ReadsState,
		// Stable: decisions are kept in histories, and only a crash makes a
		// live process dead.
		Stable: true}
}

// newAgreement compares each decision made in the last step with every
// decision of every other live process.
func newAgreement(w *env.World, eq Eq) error {
	p := w.LastActor()
	for _, e := range w.LastEffects() {
		if e.Kind != core.EffDecide {
			continue
		}
		for q := core.Rank(0); int(q) < w.N(); q++ {
			if q == p || w.Crashed(q) {
				continue
			}
			for _, r := range w.History(q) {
				if r.Kind == core.EffDecide && r.Instance == e.Instance && !eq(r.Value, e.Value) {
					return fmt.Errorf("live processes %v and %v decided %v and %v for a=%d", q, p, r.Value, e.Value, e.Instance)
				}
			}
		}
	}
	return nil
}

// agreement checks the whole state: every (live, unless uniform) process's
// first decision per instance is the same.
func agreement(w *env.World, uniform bool, eq Eq) error {
	type first struct {
		p core.Rank
		v core.Value
	}
	seen := map[uint64]first{}
	for p := core.Rank(0); int(p) < w.N(); p++ {
		if !uniform && w.Crashed(p) {
			continue
		}
		for _, r := range w.History(p) {
			if r.Kind != core.EffDecide {
				continue
			}
			f, ok := seen[r.Instance]
			if !ok {
				seen[r.Instance] = first{p, r.Value}
				continue
			}
			if !eq(f.v, r.Value) {
				alive := "live "
				if uniform {
					alive = ""
				}
				return fmt.Errorf("%sprocesses %v and %v decided %v and %v for a=%d", alive, f.p, p, f.v, r.Value, r.Instance)
			}
		}
	}
	return nil
}
