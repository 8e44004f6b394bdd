package props

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// IntegrityRules are the protocol's facts that Integrity needs.
type IntegrityRules struct {
	// CallOK reports whether process p may deliver on its own call (the
	// origin of a broadcast); nil: no process may.
	CallOK func(p core.Rank) error
	// SendOK reports whether process p, in world w after the step, may have
	// sent in that step (a broadcast process sends only once it has the
	// message); nil: always.
	SendOK func(w *env.World, p core.Rank) error
	// Delivered is the verb phrase of the error for a delivery in another
	// action, "%v <Delivered> by a <kind> action, not by a message" ("was
	// colored"; empty: "delivered").
	Delivered string
}

// Integrity is at-source integrity of a delivery: a process delivers
// (EffDeliver) only in a step that receives a message (a Deliver action)
// or, where rules.CallOK allows, in its own call; and a process sends only
// where rules.SendOK allows. A transition over the actor's own step
// (checker.ReadsStep): it never reads the sender's state at delivery time.
func Integrity(name, doc string, rules IntegrityRules) checker.Property[*env.World] {
	verb := rules.Delivered
	if verb == "" {
		verb = "delivered"
	}
	return checker.Property[*env.World]{Name: name, Kind: checker.Transition, Doc: doc, Reads: checker.ReadsStep,
		CheckStep: func(_ *env.World, a checker.Action, next *env.World) error {
			p := next.LastActor()
			if p == core.NoRank {
				return nil
			}
			delivered, sent := false, false
			for _, e := range next.LastEffects() {
				delivered = delivered || e.Kind == core.EffDeliver
				sent = sent || e.Kind == core.EffSend
			}
			if sent && rules.SendOK != nil {
				if err := rules.SendOK(next, p); err != nil {
					return err
				}
			}
			if !delivered {
				return nil
			}
			switch a.Kind {
			case env.Call:
				if rules.CallOK == nil {
					return fmt.Errorf("%v delivered on a call", p)
				}
				return rules.CallOK(p)
			case env.Deliver:
				return nil
			}
			return fmt.Errorf("%v %s by a %s action, not by a message", p, verb, env.KindName(a.Kind))
		}}
}

// NoDuplicates is at-most-once delivery: no process has two EffDeliver
// records for one instance. An invariant (Stable: histories only grow).
// The error is "p delivered k times" (with " for instance i" when i ≠ 0).
func NoDuplicates(name, doc string) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: name, Kind: checker.Invariant, Doc: doc, Stable: true,
		Check: func(w *env.World) error {
			for p := core.Rank(0); int(p) < w.N(); p++ {
				var counts map[uint64]int
				for _, r := range w.History(p) {
					if r.Kind != core.EffDeliver {
						continue
					}
					if counts == nil {
						counts = map[uint64]int{}
					}
					counts[r.Instance]++
					if k := counts[r.Instance]; k > 1 {
						if r.Instance == 0 {
							return fmt.Errorf("%v delivered %d times", p, k)
						}
						return fmt.Errorf("%v delivered %d times for instance %d", p, k, r.Instance)
					}
				}
			}
			return nil
		}}
}

// Deliveries checks every delivery record of every process, dead or alive:
// check(w, p, r) for each EffDeliver record r of p (the payload a broadcast
// must deliver, for example). An invariant (Stable: histories only grow).
func Deliveries(name, doc string, check func(w *env.World, p core.Rank, r env.Record) error) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: name, Kind: checker.Invariant, Doc: doc, Stable: true,
		Check: func(w *env.World) error {
			for p := core.Rank(0); int(p) < w.N(); p++ {
				for _, r := range w.History(p) {
					if r.Kind != core.EffDeliver {
						continue
					}
					if err := check(w, p, r); err != nil {
						return err
					}
				}
			}
			return nil
		}}
}
