package checker

import "fmt"

// Action labels one transition of a model. Kind is model-defined (deliver,
// crash, detect, call, …); P, Q and I are its operands (for example: deliver
// the I-th message in flight from Q to P). An Action is small and comparable
// so that the checker can store, print and replay it without allocating.
type Action struct {
	Kind uint8 `json:"kind"`
	P    int32 `json:"p"`
	Q    int32 `json:"q"`
	I    int32 `json:"i"`
}

// String formats the raw action, e.g. "kind 5 p=99 q=0 i=0"; models give
// a readable form with Describe.
func (a Action) String() string {
	return fmt.Sprintf("kind %d p=%d q=%d i=%d", a.Kind, a.P, a.Q, a.I)
}

// KindNamer is implemented by models that name their action kinds
// ("deliver", "crash", …). Traces of such a model carry each step's kind
// name next to its number (Step.KindName); the number is what replay
// takes, the name is for people and is checked against the number.
type KindNamer interface {
	KindName(kind uint8) string
}

// Model is a transition system. S is its state type; a state is never
// changed once built (Apply returns a new one), so the checker may share it
// between workers.
type Model[S any] interface {
	// Name identifies the model and its parameters, e.g. "era n=4 crashes=1".
	Name() string
	// Init returns the initial states, in a fixed order.
	Init() []S
	// Actions appends the actions enabled in s to buf, in a fixed order.
	Actions(s S, buf []Action) []Action
	// Apply returns the state after taking a in s. s is left unchanged. An
	// action that is not enabled in s is an error, never a panic.
	Apply(s S, a Action) (S, error)
	// Encode appends the canonical encoding of s: equal states, equal bytes.
	// Fingerprints are hashes of it.
	Encode(b []byte, s S) []byte
	// Quiescent reports whether s is quiescent: nothing left to deliver,
	// detect or call. Quiescence properties are checked only there.
	Quiescent(s S) bool
	// Describe says, for a person, what taking a in s does ("p1 delivers
	// UP(a=0,v=1) from p3; sends DOWN to p4").
	Describe(s S, a Action) string
	// Properties lists what must hold (and what is expected to fail).
	Properties() []Property[S]
}

// PropertyKind says when a property is checked.
type PropertyKind uint8

const (
	// Invariant: checked on every reachable state.
	Invariant PropertyKind = iota + 1
	// Quiescence: checked on every quiescent reachable state (Model.Quiescent).
	Quiescence
	// Transition: checked on every transition (prev, action, next); the
	// model keeps in next whatever history the property needs (the effects
	// of the step, decisions so far).
	Transition
	// Eventually: a liveness property over infinite runs, "eventually
	// Check holds" (Check is a state predicate: nil when it holds). A
	// violation is a reachable run that never satisfies it: a reachable
	// cycle all of whose states fail Check (a lasso, Trace.Loop > 0), or a
	// reachable quiescent state that fails it (the run may end there).
	// BFS and DFS check it on the explicit state graph (eventually.go);
	// random walks at the quiescent states they reach and on the cycles
	// they close (a walk back at a state it visited, the property failing
	// all along). When it holds on a complete search, Result.Bounds says
	// how long it can take (steps, and time for a Timed model).
	Eventually
)

// String names the kind: "invariant", "quiescence", "transition" or
// "eventually".
func (k PropertyKind) String() string {
	switch k {
	case Invariant:
		return "invariant"
	case Quiescence:
		return "quiescence"
	case Transition:
		return "transition"
	case Eventually:
		return "eventually"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Property is a named check. Check is used by Invariant, Quiescence and
// Eventually properties, CheckStep by Transition properties; each returns nil when the
// property holds and an error that says why not.
//
// Check and CheckStep are functions of their arguments: they must not keep
// a state beyond the call (copy out what must outlive it). A model that
// implements Recycler reuses the memory of the states a search drops
// (recycle.go), so a kept state may later read as another one.
type Property[S any] struct {
	Name string
	Kind PropertyKind
	// ExpectFail marks a property that the protocol is known not to have
	// (ERA's uniform agreement): the checker looks for its counterexample
	// only when asked for it by name.
	ExpectFail bool
	// Doc is one line: what the property says and its source.
	Doc       string
	Check     func(s S) error
	CheckStep func(prev S, a Action, next S) error
	// Reads declares what CheckStep reads, for partial-order reduction
	// (Options.POR; see StepReads). Only Transition properties use it; the
	// zero value (ReadsAnything) turns the reduction off for a run that
	// checks the property.
	Reads StepReads
	// Stable declares, for an Invariant or a ReadsState Transition
	// property, that a violation persists: if it is violated in a state, it
	// is violated after every progress action of the model's persistent
	// sets (Persistent; for checker/env every action but a Crash). Facts
	// recorded in a history that only grows are stable. The persistent-set
	// reduction of DFS (Options.POR) is refused for a run that checks a
	// property not marked Stable.
	Stable bool
}
