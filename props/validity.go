package props

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// OnDecisions is a transition checked on every decision (EffDecide) of a
// step: check(w, p, e) with w the world after the step, p the deciding
// process and e the decision. reads declares what check reads
// (checker.StepReads).
func OnDecisions(name, doc string, reads checker.StepReads, check func(w *env.World, p core.Rank, e core.Effect) error) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: name, Kind: checker.Transition, Doc: doc, Reads: reads,
		CheckStep: func(_ *env.World, _ checker.Action, next *env.World) error {
			p := next.LastActor()
			for _, e := range next.LastEffects() {
				if e.Kind != core.EffDecide {
					continue
				}
				if err := check(next, p, e); err != nil {
					return err
				}
			}
			return nil
		}}
}

// Input returns process q's input for an instance, if q made that call.
type Input func(w *env.World, q core.Rank, instance uint64) (core.Value, bool)

// Validity is "a decided value comes from the inputs", checked on every
// decision. With combine nil (consensus): the value equals the input of
// some process for that instance. With combine non-nil (a semilattice
// join F, as in agreement protocols that combine contributions): the value
// is F over a set of inputs that includes every process alive at the
// decision. Since F is a join, such a set exists exactly when v = F(live
// inputs ∪ {crashed inputs x ≤ v}), x ≤ v meaning F(v, x) = v, so no subset
// is enumerated. The step reads inputs and failures
// (checker.ReadsStep|ReadsInputs|ReadsFailures).
func Validity(name, doc string, input Input, combine func(a, b core.Value) core.Value, eq Eq) checker.Property[*env.World] {
	eq = orSame(eq)
	check := func(w *env.World, p core.Rank, e core.Effect) error {
		a, v := e.Instance, e.Value
		if combine == nil {
			for q := core.Rank(0); int(q) < w.N(); q++ {
				if c, ok := input(w, q, a); ok && eq(c, v) {
					return nil
				}
			}
			return fmt.Errorf("%v decided %v for a=%d, which is no process's input", p, v, a)
		}
		var join core.Value
		for q := core.Rank(0); int(q) < w.N(); q++ {
			c, ok := input(w, q, a)
			switch {
			case !w.Crashed(q) && !ok:
				return fmt.Errorf("%v decided %v for a=%d while %v is alive and has not contributed", p, v, a, q)
			case !w.Crashed(q):
				join = combine(join, c)
			case ok && eq(combine(v, c), v):
				join = combine(join, c)
			}
		}
		if join == nil || !eq(join, v) {
			return fmt.Errorf("%v decided %v for a=%d, which is not F over any set of contributions that includes every live process (live and compatible contributions give %v)", p, v, a, join)
		}
		return nil
	}
	return OnDecisions(name, doc, checker.ReadsStep|checker.ReadsInputs|checker.ReadsFailures, check)
}
