package props

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// Suspects reports whether process p suspects q in w (q is in p's
// suspected, declared or Reported set, whatever the detector calls it).
type Suspects func(w *env.World, p, q core.Rank) bool

// StrongAccuracy is "no process is suspected before it crashes" (Chandra
// and Toueg's strong accuracy): an Invariant, violated by any process p,
// crashed or not (its last state counts), that suspects a live q. It is
// Stable for detectors whose suspicions are never withdrawn. The error
// names both ("p0 suspects p1, which is alive").
func StrongAccuracy(name, doc string, suspects Suspects) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: name, Kind: checker.Invariant, Doc: doc,
		Check: func(w *env.World) error {
			for p := core.Rank(0); int(p) < w.N(); p++ {
				for q := core.Rank(0); int(q) < w.N(); q++ {
					if q != p && !w.Crashed(q) && suspects(w, p, q) {
						return fmt.Errorf("%v suspects %v, which is alive", p, q)
					}
				}
			}
			return nil
		}}
}

// StrongCompleteness is "eventually every crashed process is suspected by
// every live process" (Chandra and Toueg's strong completeness): a
// checker.Eventually property, so its violation is a reachable cycle (or a
// quiescent state) where some live p never suspects some crashed q; when it
// holds, checker.Result.Bounds gives the worst-case detection latency.
// expected, when not nil, narrows the pairs: q must be suspected by p only
// when expected(w, p, q) (for example only by the live processes whose
// daemon lives); it is asked only for live p and crashed q ≠ p. The error
// names the first missing pair ("p0 is alive and does not suspect the
// crashed p2"). The lasso search assumes no fairness: under env's
// Asynchronous timing a timer that re-arms forever makes a cycle that
// never takes a pending report or delivery, which fails the property for
// any detector; check it under env.BoundedDelay, where every cycle passes
// a Tick and nothing due is ever postponed.
func StrongCompleteness(name, doc string, suspects Suspects, expected func(w *env.World, p, q core.Rank) bool) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: name, Kind: checker.Eventually, Doc: doc,
		Check: func(w *env.World) error {
			if w.NumCrashed() == 0 {
				return nil
			}
			for p := core.Rank(0); int(p) < w.N(); p++ {
				if w.Crashed(p) {
					continue
				}
				for q := core.Rank(0); int(q) < w.N(); q++ {
					if q != p && w.Crashed(q) && (expected == nil || expected(w, p, q)) && !suspects(w, p, q) {
						return fmt.Errorf("%v is alive and does not suspect the crashed %v", p, q)
					}
				}
			}
			return nil
		}}
}
