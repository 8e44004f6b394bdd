// Package props is a library of property constructors for models built on
// the message-passing environment (checker/env): each returns a
// checker.Property[*env.World] over the world and its effect histories
// (env.Record: decisions, returns, deliveries per process). It knows no
// protocol: a model composes its property list from these constructors in
// models/<p>/props.go, passing the names, the docs (which cite the paper)
// and the few protocol facts a property needs (how values compare, what a
// process's input for an instance is, how many messages it may send).
//
// The families, with the terms of the field:
//
//	Agreement        no two (live, or any: uniform) processes decide differently
//	Irrevocability   a decision or return is never replaced by a different one
//	Validity         a decided value comes from the inputs
//	Proposed         a decided value was proposed, for any instance (a sequence of consensus instances)
//	DecideOnce       no process decides twice for one instance
//	DecidedInOrder   each process decides instances 0, 1, 2, … in order
//	OnDecisions      any per-decision check (participation, …)
//	Integrity        a process delivers only on a received message or its own call
//	NoDuplicates     at-most-once delivery per process and instance
//	Deliveries       every delivered value passes a check (payload)
//	TotalOrder       two processes deliver their common messages in the same order
//	BoundedMessages  a process sends at most a bound of messages
//	Termination      at quiescence every live process is done
//	Eventually       eventually a predicate holds, under an assumption on the run's limit (over lassos)
//	StrongAccuracy   no process suspects a live one (failure detectors)
//	StrongCompleteness  eventually every live process suspects every crashed one (over lassos)
//	DetectorComplete at quiescence every crash was reported to every live process
//
// A test keeps this package from importing statemachine/* or models/*.
package props
