package checker

// Partial-order reduction (Options.POR): sleep sets with state caching
// (Godefroid, "Partial-Order Methods for the Verification of Concurrent
// Systems", LNCS 1032, ch. 5), run level by level in BFS.
//
// # The relation
//
// A model opts in by implementing Independence. Independent(s, a, b) may
// return true only if, in s:
//
//  1. a and b are both enabled;
//  2. they commute and neither disables the other: b is enabled in s·a, a is
//     enabled in s·b, and s·a·b and s·b·a have the same Model.Encode (the
//     action labels keep their meaning: the b taken in s·a is the b of s);
//  3. neither changes what a transition property reads about the other:
//     for every selected Transition property P (all declare a StepReads,
//     otherwise the reduction is off), the verdict of P on (s, b, s·b)
//     equals its verdict on (s·a, b, s·a·b), and symmetrically.
//
// The checker only asks about actions enabled in s. The relation must be
// symmetric in a and b.
//
// # The search
//
// Every state s carries a sleep set Z(s) of actions enabled in s that need
// not be taken there. s is expanded by taking, in Model.Actions order, the
// actions not in Z(s); the successor by a gets the sleep set
//
//	{ c ∈ Z(s) ∪ {actions taken at s before a in this expansion} :
//	  Independent(s, a, c) }.
//
// With state caching a state may be reached again with a sleep set Z' that
// does not contain the one it was expanded with; it is then expanded again,
// for exactly the actions of Z(s) \ Z', and Z(s) becomes Z(s) ∩ Z'
// (Godefroid's Fig. 5.3). In BFS the sleep sets of all arrivals at a state
// within one level are intersected before the state is expanded, and a
// state of an earlier level reached with a smaller sleep set goes back into
// the next level for the missing actions only (its state properties are not
// checked again: it is not a new state). Initial states have Z = ∅.
//
// # What is preserved
//
// States: sleep sets prune transitions, never states — every state reachable
// from an initial state is visited (Godefroid, Theorem 5.2 and §5.3 with
// state caching). Invariants and quiescence properties are checked on every
// distinct state, so their verdicts are unchanged; Result.States equals the
// unreduced count on a complete search (the tests assert it on every model
// and mutant of the registry).
//
// Transitions: a transition (s, b) is skipped only when b ∈ Z(s). Follow b
// back through the arrival that gave it: b entered a sleep set at some
// state s0 where b was taken (explored, its transition properties checked),
// and every arrival on the way from s0 to s kept b only because b was
// independent of the action taken, so s = s0·a1·…·ak with Independent(
// s_{i-1}, a_i, b) at every step. (Every sleep set is an intersection of
// arrivals, and each arrival is computed from an earlier expansion, so the
// walk back ends, and it cannot end at an initial state, whose set is
// empty.) By condition 3 applied k times, every transition property has the
// same verdict on (s, b, s·b) as on the checked (s0, b, s0·b). Hence a
// property declared ReadsStep or ReadsStep|ReadsInputs is violated on some
// reachable transition exactly when it is violated on a checked one.
//
// A property declared ReadsState is checked on the transitions of explored
// paths only, and that suffices: every visited state is reached by a path
// of explored transitions, and a ReadsState property fails on some
// transition of a path from an initial state exactly when the path reaches
// a state satisfying its predicate Bad (see ReadsState).
//
// What may change: Result.Transitions (the point), Result.Depth and the
// counterexamples. A state may be first reached by a longer path than its
// BFS distance, so counterexamples stay real, replayable paths but may be
// longer than the shortest ones; Options.MaxDepth bounds the explored paths,
// so a depth-bounded reduced search may see fewer states than an unreduced
// one.

// Independence is the optional interface of a Model that knows which of its
// actions commute (see the conditions above). Without it Options.POR has no
// effect (Result.POR is false).
type Independence[S any] interface {
	// Independent reports whether a and b, both enabled in s, are
	// independent in s. It must be symmetric and must be safe for
	// concurrent use.
	Independent(s S, a, b Action) bool
}

// StepReads declares what a Transition property reads, so that a model's
// Independence can keep it unchanged (condition 3 above). It is a bit set.
type StepReads uint8

const (
	// ReadsAnything (the zero value): the property may read anything of
	// the step; a search checking it is not reduced.
	ReadsAnything StepReads = 0
	// ReadsStep: the verdict depends only on what the model's Independence
	// documents as a step's footprint (for checker/env: the action, the
	// acting process's own state before and after, and the step's effects).
	ReadsStep StepReads = 1 << 0
	// ReadsInputs, with ReadsStep: also the inputs every process has
	// consumed so far (for checker/env: the calls made by every process).
	ReadsInputs StepReads = 1 << 1
	// ReadsFailures, with ReadsStep: also which processes have failed (for
	// checker/env: the crashed set).
	ReadsFailures StepReads = 1 << 3
	// ReadsState: the property is an invariant checked on steps. There is
	// a state predicate Bad, false in every initial state, such that for
	// every transition (s, a, t): CheckStep fails ⇒ Bad(t), and
	// ¬Bad(s) ∧ Bad(t) ⇒ CheckStep fails. It may read anything of the
	// step and does not constrain the relation.
	ReadsState StepReads = 1 << 2
)

// porBlocker returns the name of the first selected transition property
// that does not declare what it reads, or "".
func (ps *propSet[S]) porBlocker() string {
	for _, i := range ps.trans {
		if ps.all[i].Reads == ReadsAnything {
			return ps.all[i].Name
		}
	}
	return ""
}
