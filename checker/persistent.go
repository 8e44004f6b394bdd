package checker

import "fmt"

// Partial-order reduction in DFS (Options.POR with DepthFirst): persistent
// sets with the stack proviso (Godefroid, "Partial-Order Methods for the
// Verification of Concurrent Systems", LNCS 1032, ch. 4 and 6; Peled, "All
// from one, one for all", CAV'93; Holzmann and Peled, "An improvement in
// formal verification", FORTE'94, for the stack proviso). Unlike the sleep
// sets of BFS (independence.go), which skip transitions but keep every
// state, persistent sets skip states.
//
// # The contract
//
// A model opts in by implementing Persistent. In a state s with enabled
// actions E, Persistent(s, E) names a subset T of E (nil or all of E: no
// reduction). When T is a proper subset of E it must satisfy:
//
//  1. Persistence: let w be a path from s that takes no action of T.
//     (a) For every action b of T enabled at the end of w, b·w is a path
//     from s that ends in the same state as w·b, each of its transitions
//     with the verdicts of its counterpart in w·b for every selected
//     transition property. (b) T's progress action (condition 2) is
//     enabled in every state of w. Both hold when every action of w is
//     independent of every action of T in the sense of Independence
//     conditions 1–3 (they commute, neither disables the other, neither
//     changes the verdict of a selected transition property on the
//     other), where actions are transitions (a delivery is of a message,
//     not of an index); (a) is weaker in one respect that checker/env
//     uses: an action of w may disable a non-progress action b of T, as
//     long as the two commute whenever a path takes both (two crashes
//     that share a budget); and (b) in another: an action c of w may
//     disable the progress action a when c absorbs a, that is, from the
//     state before c, a·c is a path that ends in the state c alone reaches,
//     c's transition with the same verdicts (a crash of the receiver of a
//     delivery that changes nothing). And (a) is weaker in a third: b may
//     absorb actions of w it disables, that is, with w' the path w less
//     those actions, b·w' is a path from s that ends in the state w·b
//     ends in, each of its transitions with the verdicts of its
//     counterpart in w·b, and each action left out passes every selected
//     transition property (a crash of a process that forgets its state,
//     checker/env's ForgetCrashed, and deliveries to it that change only
//     what the forgetting drops).
//  2. Progress: T contains an action that is enabled in no quiescent state
//     and after which every selected property marked Stable that is
//     violated in a state is still violated (for checker/env: any action
//     but a Crash).
//
// The checker adds the rest (the stack proviso, C3): a state whose reduced
// expansion leads to a state on the DFS stack (itself included) is then
// fully expanded, so every cycle of the reduced graph has a fully expanded
// state.
//
// # Which properties are preserved
//
// Transition properties that declare what they read (Property.Reads other
// than ReadsAnything; ReadsState ones must also be Stable), quiescence
// properties, and invariants marked Stable. The search refuses the
// reduction otherwise (Result.PORNote says which property stands in the
// way).
//
// Sketch of the proof, for a reduced state s and a violating step b
// reachable from s by a path w·b in the full graph. If w·b takes an action
// of T(s), let a be the first: by persistence (1a) it can be taken before
// everything before it (less the actions it absorbs, which violate
// nothing), so s·a reaches the violation by a path at least one step
// shorter. If it takes none, take the progress action a of T(s): it is
// still enabled after w·b (1b), so by (1a) a·w·b is a path with the same
// verdicts, and s·a reaches the same kind of violation by a path of the
// same length. If instead an action c of w·b disables a, then c absorbs a
// (1b): write w·b = u·c·v with a enabled along u; by (1a) a·u ends where
// u·a does, and a·c there ends where c does, so a·u·c·v is a path from s
// with the same verdicts, and s·a reaches the violation by a path of the
// same length again. Repeating, the reduced walk
// either shortens the path or runs along the reduced graph; as the graph
// is finite the walk closes a cycle, on which the proviso put a fully
// expanded state, where the first action of the path is in T. So the
// reduced search reaches the violating step. A violated invariant (a Bad
// state) is the same argument with "reaches a Bad state" in place of "takes
// b", which is why it needs Stable (Bad stays Bad after the progress
// action). A violated quiescence property is a quiescent state q reachable
// by w: if w takes an action of T the path shortens as above; if it takes
// none, some action c of w disables the progress action a (else a would
// still be enabled in q, by 1b), so c absorbs a, and s·a reaches q itself
// by a path of the same length, as above; the same walk, with the same
// proviso argument, reaches q.
//
// What may change: States (the point), Transitions, Depth and
// counterexamples (DFS paths are not shortest anyway). Lassos need the
// whole graph and turn the reduction off.

// Persistent is the optional interface of a Model that can pick persistent
// sets (see the contract above). Without it Options.POR has no effect in DFS
// (Result.PORNote says why).
type Persistent[S any] interface {
	// Persistent appends to buf the actions of enabled (Model.Actions of s,
	// in that order) that form a persistent set of s, in the same order, and
	// returns buf. Appending nothing or all of enabled means "expand s
	// fully". It must be deterministic.
	Persistent(s S, enabled []Action, buf []Action) []Action
}

// stableBlocker returns the name of the first selected property that a
// persistent-set search cannot preserve: an invariant or a ReadsState
// transition property not marked Stable, or a transition property that does
// not declare what it reads.
func (ps *propSet[S]) stableBlocker() string {
	for _, i := range ps.inv {
		if !ps.all[i].Stable {
			return fmt.Sprintf("invariant %q is not marked Stable", ps.all[i].Name)
		}
	}
	for _, i := range ps.trans {
		p := &ps.all[i]
		if p.Reads == ReadsAnything {
			return fmt.Sprintf("transition property %q does not declare what it reads (Property.Reads)", p.Name)
		}
		if p.Reads&ReadsState != 0 && !p.Stable {
			return fmt.Sprintf("transition property %q reads the state but is not marked Stable", p.Name)
		}
	}
	return ""
}

// setupPersistent decides whether DFS is reduced and returns the model's
// persistent sets, or nil with Result.PORNote set.
func setupPersistent[S any](x *search[S]) Persistent[S] {
	if !x.opt.POR {
		return nil
	}
	ps, ok := x.m.(Persistent[S])
	switch {
	case !ok:
		x.res.PORNote = "the model has no persistent sets (checker.Persistent)"
	case x.sym:
		x.res.PORNote = "not combined with symmetry reduction"
	case x.opt.Lassos:
		x.res.PORNote = "lassos need the whole state graph"
	default:
		if why := x.ps.stableBlocker(); why != "" {
			x.res.PORNote = why
			return nil
		}
		x.res.POR = true
		return ps
	}
	return nil
}
