// Package linearize checks recorded histories of a one-shot agreement object
// (ERA, MPIX_Comm_agree) against a sequential specification with the
// porcupine linearizability checker. Its core knows nothing of any protocol
// package: a history is a neutral list of Call and Return events carrying
// canonical encodings, and the combine operation F is given by the caller as
// a function on encodings. The one adapter, era.go (FromERAWorlds,
// ERACombine), builds such histories from runs of the ERA environment; no
// protocol package imports this one.
//
// # The object
//
// Each process calls Agreement(v, a) at most once per agreement a with its
// contribution v and receives the decided value d. F is associative,
// commutative and idempotent, so it is the join of a semilattice; write
// x ≤ d for F(d, x) == d ("x is included in d"). One porcupine partition is
// one agreement (Instance); instances are checked independently.
//
// The sequential specification (see ConsensusModel) has state ⊥ or
// "decided d". A returned operation with contribution c and output d is legal
// in state s exactly when
//
//   - Agreement: s is ⊥ or s is d; the new state is d.
//   - Participation: c ≤ d, i.e. F(d, c) == d.
//   - Validity: d == F over {x in Visible : x ≤ d}, where Visible is the set
//     of contributions of every call for the same instance whose Call step is
//     at or before this operation's Return step (this operation's own
//     contribution included; calls that never returned included).
//
// Validity says d is F over some subset of the contributions that had been
// made by the time d was returned, and that subset includes the caller (its
// contribution is ≤ d, so adding it does not change the join). The largest
// such subset is {x in Visible : x ≤ d}; d is a join of a subset of Visible
// if and only if it is the join of that one. Because Visible only grows with
// the return step, checking every returned operation against its own Visible
// is the same as checking the earliest return of the instance: the decision
// cannot rest on a contribution whose call came after the first process
// already knew the decision.
//
// # Calls that never return
//
// A Call without a Return (the process crashed, or the trace ended first) is
// an operation whose return is at PendingReturn (math.MaxInt64, after every
// other event) and whose Output has Returned == false. Such an output matches
// anything: the step is always legal and leaves the state unchanged. Its
// contribution still appears in the Visible set of every operation that
// returned after its call, so the decision may, but need not, include it.
//
// # What is not checked
//
//   - Validity with respect to processes that never called: a history holds
//     no contribution for them, so a decision that used one is reported as a
//     violation unless other contributions explain it, and a decision that
//     should have waited for them (ERA requires every live process of the
//     communicator to contribute) is not detected.
//   - Whether leaving out a pending caller's contribution was legitimate: the
//     model cannot tell a crashed process from a slow one, so every pending
//     contribution may be included or left out.
//   - Termination: a call that never returns is indistinguishable from a
//     crash; liveness is outside linearizability.
//   - Anything across instances (order of agreements, reuse of ids).
//   - The algebra of F: the caller's Combine is trusted to be associative,
//     commutative and idempotent, and encodings to be canonical (values are
//     compared byte for byte).
package linearize
