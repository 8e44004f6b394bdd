// Package era is the Early Returning Agreement (ERA) of Herault et al.,
// "Practical Scalable Consensus for Pseudo-Synchronous Distributed Systems"
// (SC'15), the algorithm behind ULFM's MPIX_Comm_agree, written as a
// core.Machine.
//
// The files follow the paper: procedures.go holds the procedures Agreement
// and Decision, rules.go the guarded rules of ERA Part 2 (messages), Part 3
// (the spontaneous rule DC) and Part 4 (a process is discovered dead),
// topology.go and shape.go the Parent and Children functions of §2 over the
// flat and X/Y hierarchical trees of §3, rebalance.go §3's Tree
// Rebalancing, op.go and ulfm.go the combine operation F, and gc.go the
// garbage collection of §3. mutants.go holds the broken variants as hooks
// that the rules call, so that each rule reads as the paper's.
//
// A node is a core.Machine: the runtime gives it calls (core.Call of a
// Contribute), the messages it receives (core.Receive) and the failures its
// detector discovers (core.Suspect), and carries out the effects: every
// EffSend, core.Decide(a, v) when procedure Decision runs and
// core.Return(a, v) once the caller's Agreement(v, a) returns. Example runs
// a 4-process agreement this way; testdata/*.txt replay the paper's rules
// step by step (see paper_test.go).
//
// Where the paper is ambiguous, or where its pseudocode contradicts its prose
// and proofs, the choice made is written next to the rule (search for
// "Ambiguity"); each literal reading that fails a §2.1 property is kept as a
// mutant (see Mutants). One rule is changed beyond a reading (search for
// "Finding"): Rule Recv(RESULTREQUEST) as printed breaks Agreement
// (Theorem 2), and requestMarks completes it; the printed rule is
// MutantRequestEldersOnly (docs/era.md).
package era
