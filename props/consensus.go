package props

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// Properties of a sequence of consensus instances (Multi-Paxos, atomic
// broadcast): a value is proposed once, for no instance in particular, and
// each instance decides one of the proposed values.

// Proposals returns the values process q has proposed so far (its calls
// made), for any instance.
type Proposals func(w *env.World, q core.Rank) []core.Value

// Proposed is validity for a sequence of instances ("if a process decides
// v, then v was proposed by some process"): checked on every decision, v
// equals a value some process, live or crashed, has proposed by a call
// made, in any instance, or filler(v) holds (a value the protocol itself
// may decide, such as Paxos's no-op for an instance no one proposed to;
// nil: none). eq compares values (nil: SameEncoding). A transition
// reading the step and every process's calls made
// (checker.ReadsStep|ReadsInputs). The error names the decider, the value
// and the instance.
func Proposed(name, doc string, proposals Proposals, filler func(v core.Value) bool, eq Eq) checker.Property[*env.World] {
	eq = orSame(eq)
	check := func(w *env.World, p core.Rank, e core.Effect) error {
		if filler != nil && filler(e.Value) {
			return nil
		}
		for q := core.Rank(0); int(q) < w.N(); q++ {
			for _, v := range proposals(w, q) {
				if eq(v, e.Value) {
					return nil
				}
			}
		}
		return fmt.Errorf("%v decided %v for a=%d, which no process proposed", p, e.Value, e.Instance)
	}
	return OnDecisions(name, doc, checker.ReadsStep|checker.ReadsInputs, check)
}

// DecideOnce is integrity of decisions ("no process decides twice"): no
// process, live or crashed, has two EffDecide records for one instance,
// whether the values are equal or not (a process that restarted and
// decided an instance again breaks it too, since its history survives the
// restart). An invariant (Stable: histories only grow). The error names
// the process, the instance and both values.
func DecideOnce(name, doc string) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: name, Kind: checker.Invariant, Doc: doc, Stable: true,
		Check: func(w *env.World) error {
			for p := core.Rank(0); int(p) < w.N(); p++ {
				var seen map[uint64]core.Value
				for _, r := range w.History(p) {
					if r.Kind != core.EffDecide {
						continue
					}
					if v, ok := seen[r.Instance]; ok {
						return fmt.Errorf("%v decided twice for a=%d: %v, then %v", p, r.Instance, v, r.Value)
					}
					if seen == nil {
						seen = map[uint64]core.Value{}
					}
					seen[r.Instance] = r.Value
				}
			}
			return nil
		}}
}

// DecidedInOrder is in-order delivery of a sequence of instances: the
// k-th decision of every process (counting over its whole history,
// restarts included) is for instance k, so a process decides instance i
// only after 0 … i−1 and none twice. A transition over the actor's own
// history (checker.ReadsStep).
func DecidedInOrder(name, doc string) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: name, Kind: checker.Transition, Doc: doc, Reads: checker.ReadsStep,
		CheckStep: func(_ *env.World, _ checker.Action, next *env.World) error {
			p := next.LastActor()
			if p == core.NoRank || !p.Valid(next.N()) {
				return nil
			}
			k := uint64(0)
			for _, r := range next.History(p) {
				if r.Kind != core.EffDecide {
					continue
				}
				if r.Instance != k {
					return fmt.Errorf("%v decided a=%d as its decision number %d (instances must be decided in order, once each)", p, r.Instance, k)
				}
				k++
			}
			return nil
		}}
}

// Eventually is "eventually done holds", under an assumption on the
// limit of a run: a checker.Eventually property whose check passes
// wherever assumption(w) is false. The checker reports a reachable
// quiescent world, or a reachable cycle of worlds, where done fails and
// the assumption holds; since every world of such a cycle fails the
// property, a run whose assumption fails only for a while (a process down,
// then restarted) must still reach done once it holds again. Use it with
// finite fault budgets, so that faults stop, and under env.BoundedDelay,
// where every cycle passes a Tick and no delivery or timer due is
// postponed forever (no fairness assumption is then needed; see
// StrongCompleteness). assumption nil: always assumed.
func Eventually(name, doc string, assumption func(w *env.World) bool, done func(w *env.World) error) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: name, Kind: checker.Eventually, Doc: doc,
		Check: func(w *env.World) error {
			if assumption != nil && !assumption(w) {
				return nil
			}
			return done(w)
		}}
}
