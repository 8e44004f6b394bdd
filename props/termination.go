package props

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// CallInstance returns the instance a call is for, and whether the call
// expects a return (EffReturn) at all.
type CallInstance func(in core.Input) (instance uint64, returns bool)

// Termination is "at quiescence (nothing left to deliver, detect, call or
// fire), every live process has returned from every call it made that
// expects a return": a Quiescence property over the calls made and the
// EffReturn records. call names the operation in the error ("p is alive,
// called <call>(a=N) and never returned, …").
func Termination(name, doc, call string, instance CallInstance) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: name, Kind: checker.Quiescence, Doc: doc,
		Check: func(w *env.World) error {
			for p := core.Rank(0); int(p) < w.N(); p++ {
				if w.Crashed(p) {
					continue
				}
			calls:
				for _, in := range w.CallsMade(p) {
					a, ok := instance(in)
					if !ok {
						continue
					}
					for _, r := range w.History(p) {
						if r.Kind == core.EffReturn && r.Instance == a {
							continue calls
						}
					}
					return fmt.Errorf("%v is alive, called %s(a=%d) and never returned, yet nothing is left to deliver, detect or call", p, call, a)
				}
			}
			return nil
		}}
}

// LiveDone is "at quiescence every live process is done" (the non-faulty
// liveness of a broadcast: every live process has the message): a
// Quiescence property; done reports p's state, and state names the
// failing ones in the error ("live processes [...] are <state>, yet
// nothing is left to deliver or fire (crashed: ...)").
func LiveDone(name, doc, state string, done func(w *env.World, p core.Rank) bool) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: name, Kind: checker.Quiescence, Doc: doc,
		Check: func(w *env.World) error {
			var missing []core.Rank
			for p := core.Rank(0); int(p) < w.N(); p++ {
				if !w.Crashed(p) && !done(w, p) {
					missing = append(missing, p)
				}
			}
			if len(missing) > 0 {
				return fmt.Errorf("live processes %v are %s, yet nothing is left to deliver or fire (crashed: %v)", missing, state, w.CrashedSet())
			}
			return nil
		}}
}
