package correction

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/props"
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
		props.Integrity(BcastIntegrity,
			"a process becomes colored only by receiving a message (the root by its Broadcast call), and sends only while colored, so every message comes from a colored process (§2.1 Integrity)",
			props.IntegrityRules{CallOK: rootCalls, SendOK: sendsColored, Delivered: "was colored"}),
		props.Deliveries(BcastPayloadIsRoot,
			"every delivered value is the root's broadcast value (§2.1 Integrity)",
			rootPayload),
		props.NoDuplicates(BcastNoDuplicates,
			"the message is delivered to the application at most once per process (§2.1 No duplicates)"),
		props.LiveDone(BcastLiveness,
			"when nothing is left to deliver or fire, every live process is colored (§2.1 Non-faulty liveness)",
			"uncolored", colored),
		props.BoundedMessages(BcastTermination,
			"every process sends at most |children| + 2(P-1) messages (+ P-1 for delayed): no infinite send loop (§2.1 Termination)",
			sendBound),
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

// rootCalls: only the root delivers on a call, its Broadcast (§2.1
// Integrity: a process is colored only by a message, the root by its
// Broadcast call).
func rootCalls(p core.Rank) error {
	if p != 0 {
		return fmt.Errorf("%v delivered on a call, but only the root broadcasts", p)
	}
	return nil
}

// sendsColored: a step in which p sends must leave p colored, so every
// message comes from a colored process. It reads the actor's state after
// the step, never the sender's state at delivery time: a sender colored
// when it sent is what §2.1 asks, and coloring is never undone.
func sendsColored(w *env.World, p core.Rank) error {
	if n := bcastNode(w, p); n == nil || !n.Colored() {
		return fmt.Errorf("%v sent a message while uncolored", p)
	}
	return nil
}

// rootPayload: a delivered value is the root's broadcast value.
func rootPayload(w *env.World, p core.Rank, r env.Record) error {
	v, ok := rootValue(w)
	got, isVal := r.Value.(corrsm.Value)
	if !ok || !isVal || got != v {
		return fmt.Errorf("%v delivered %v, the root broadcasts %v", p, r.Value, v)
	}
	return nil
}

// colored: p has the message.
func colored(w *env.World, p core.Rank) bool {
	n := bcastNode(w, p)
	return n != nil && n.Colored()
}

// sendBound: p's send counter and Node.SendBound().
func sendBound(w *env.World, p core.Rank) (sent, bound int, ok bool) {
	n := bcastNode(w, p)
	if n == nil {
		return 0, 0, false
	}
	return n.Sent(), n.SendBound(), true
}
