package correction

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// Corrected broadcast property names (Küttler et al., PPoPP'19 §2.1), as
// ftcheck --property takes them.
const (
	BcastIntegrity     = "integrity"
	BcastNoDuplicates  = "no-duplicates"
	BcastLiveness      = "non-faulty-liveness"
	BcastTermination   = "termination"
	BcastPayloadIsRoot = "payload"
)

// Correction returns the properties of a Corrected Tree broadcast over
// worlds of corrsm.Node machines, whose root (rank 0) calls
// corrsm.Broadcast once:
//
//   - integrity (transition): a process is colored (delivers) only in a step
//     that receives a message, or, for the root, by its Broadcast call, and
//     a process sends only while colored (so every message comes from a
//     colored process);
//   - payload (invariant): every delivered value is the root's;
//   - no-duplicates (invariant): at most one delivery per process;
//   - non-faulty-liveness (quiescence): at quiescence every live process is
//     colored;
//   - termination (invariant): every process has sent at most
//     Node.SendBound() messages: |children| + 2(P-1) (+ P-1 stop replies for
//     delayed correction). In the asynchronous model "eventually stops
//     sending" is "no unbounded send loop"; a bound checked in every state
//     says so.
//
// The three invariants read histories and send counters, which only grow:
// they are Stable (checker.Property.Stable).
func Properties() []checker.Property[*env.World] {
	return []checker.Property[*env.World]{
		{Name: BcastIntegrity, Kind: checker.Transition,
			Doc:       "a process becomes colored only by receiving a message (the root by its Broadcast call), and sends only while colored, so every message comes from a colored process (§2.1 Integrity)",
			CheckStep: bcastIntegrity, Reads: checker.ReadsStep},
		{Name: BcastPayloadIsRoot, Kind: checker.Invariant,
			Doc:   "every delivered value is the root's broadcast value (§2.1 Integrity)",
			Check: bcastPayload, Stable: true},
		{Name: BcastNoDuplicates, Kind: checker.Invariant,
			Doc:   "the message is delivered to the application at most once per process (§2.1 No duplicates)",
			Check: bcastNoDuplicates, Stable: true},
		{Name: BcastLiveness, Kind: checker.Quiescence,
			Doc:   "when nothing is left to deliver or fire, every live process is colored (§2.1 Non-faulty liveness)",
			Check: bcastLiveness},
		{Name: BcastTermination, Kind: checker.Invariant,
			Doc:   "every process sends at most |children| + 2(P-1) messages (+ P-1 for delayed): no infinite send loop (§2.1 Termination)",
			Check: bcastTermination, Stable: true},
	}
}

func bcastNode(w *env.World, p core.Rank) *corrsm.Node {
	n, _ := w.Node(p).(*corrsm.Node)
	return n
}

// rootValue is the value the root broadcasts (its first Broadcast call).
func rootValue(w *env.World) (corrsm.Value, bool) {
	for _, in := range w.Calls(0) {
		switch b := in.(type) {
		case corrsm.Broadcast:
			return b.Value, true
		case *corrsm.Broadcast:
			return b.Value, true
		}
	}
	return 0, false
}

// bcastIntegrity checks §2.1 Integrity on the acting process's own step:
// a step that colors p (delivers) must be the delivery of a message (or, at
// the root, its Broadcast call), and a step in which p sends must leave p
// colored. Together: every message was sent by a colored process, and a
// process is colored only by receiving one. It reads only the action, the
// actor's state after the step and the step's effects (checker.ReadsStep),
// never the sender's state at delivery time: a sender colored when it sent
// is what §2.1 asks, and coloring is never undone.
func bcastIntegrity(_ *env.World, a checker.Action, next *env.World) error {
	p := next.LastActor()
	if p == core.NoRank {
		return nil
	}
	delivered, sent := false, false
	for _, e := range next.LastEffects() {
		delivered = delivered || e.Kind == core.EffDeliver
		sent = sent || e.Kind == core.EffSend
	}
	if sent {
		if n := bcastNode(next, p); n == nil || !n.Colored() {
			return fmt.Errorf("%v sent a message while uncolored", p)
		}
	}
	if !delivered {
		return nil
	}
	switch a.Kind {
	case env.Call:
		if p != 0 {
			return fmt.Errorf("%v delivered on a call, but only the root broadcasts", p)
		}
		return nil
	case env.Deliver:
		return nil
	}
	return fmt.Errorf("%v was colored by a %s action, not by a message", p, env.KindName(a.Kind))
}

func bcastPayload(w *env.World) error {
	v, ok := rootValue(w)
	for p := core.Rank(0); int(p) < w.N(); p++ {
		for _, r := range w.History(p) {
			if r.Kind != core.EffDeliver {
				continue
			}
			got, isVal := r.Value.(corrsm.Value)
			if !ok || !isVal || got != v {
				return fmt.Errorf("%v delivered %v, the root broadcasts %v", p, r.Value, v)
			}
		}
	}
	return nil
}

func bcastNoDuplicates(w *env.World) error {
	for p := core.Rank(0); int(p) < w.N(); p++ {
		k := 0
		for _, r := range w.History(p) {
			if r.Kind == core.EffDeliver {
				k++
			}
		}
		if k > 1 {
			return fmt.Errorf("%v delivered %d times", p, k)
		}
	}
	return nil
}

func bcastLiveness(w *env.World) error {
	var missing []core.Rank
	for p := core.Rank(0); int(p) < w.N(); p++ {
		if n := bcastNode(w, p); !w.Crashed(p) && (n == nil || !n.Colored()) {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("live processes %v are uncolored, yet nothing is left to deliver or fire (crashed: %v)", missing, w.CrashedSet())
	}
	return nil
}

func bcastTermination(w *env.World) error {
	for p := core.Rank(0); int(p) < w.N(); p++ {
		if n := bcastNode(w, p); n != nil && n.Sent() > n.SendBound() {
			return fmt.Errorf("%v sent %d messages, over the bound %d", p, n.Sent(), n.SendBound())
		}
	}
	return nil
}
