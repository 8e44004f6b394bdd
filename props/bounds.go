package props

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// Sends returns how many messages process p has sent in w and the most it
// may send; ok false skips p.
type Sends func(w *env.World, p core.Rank) (sent, bound int, ok bool)

// BoundedMessages is "every process sends at most its bound of messages":
// in the asynchronous model, "eventually stops sending" is "no unbounded
// send loop", and a bound checked in every state says so. An invariant
// (Stable when sends only grow, as send counters do).
func BoundedMessages(name, doc string, sends Sends) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: name, Kind: checker.Invariant, Doc: doc, Stable: true,
		Check: func(w *env.World) error {
			for p := core.Rank(0); int(p) < w.N(); p++ {
				if sent, bound, ok := sends(w, p); ok && sent > bound {
					return fmt.Errorf("%v sent %d messages, over the bound %d", p, sent, bound)
				}
			}
			return nil
		}}
}
