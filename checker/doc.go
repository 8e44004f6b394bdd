// Package checker explores models: exhaustively (parallel breadth-first
// search over 64-bit fingerprints, or depth-first search with lasso
// detection for livelocks), optionally up to symmetry (Symmetric) and
// within a memory bound, and randomly (seeded walks). It knows
// nothing of any protocol: a model is a Model[S], and the message-passing
// environment that turns core.Machine nodes into a model lives in
// checker/env.
//
// A violation yields a Trace: the actions from an initial state to the bad
// state, shortest first under breadth-first search, saved as JSON, printed as
// numbered steps, and replayable with Replay.
//
// Liveness: an Eventually property ("eventually P") is checked on the
// explicit reachable graph, by strongly connected components of the states
// that fail P (eventually.go); its counterexample is a lasso (Trace.Loop:
// a path, then a cycle of ¬P states forever) or a path to a quiescent ¬P
// state. When it holds, Result.Bounds gives the longest a run can wait for
// it, in steps and, for a Timed model, in time (checker/env: ticks): the
// worst-case latency of "every crash is eventually suspected".
package checker
