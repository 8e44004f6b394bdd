// Package era is the Early Returning Agreement (ERA) of Herault et al.,
// "Practical Scalable Consensus for Pseudo-Synchronous Distributed Systems"
// (SC'15), the algorithm behind ULFM's MPIX_Comm_agree, written as a
// core.Machine.
//
// The files follow the paper: procedures.go holds the procedures Agreement
// and Decision, rules.go the guarded rules of ERA Part 2 (messages), Part 3
// (the spontaneous rule DC) and Part 4 (a process is discovered dead),
// topology.go the Parent and Children functions of §2 and §3, op.go and
// ulfm.go the combine operation F, and gc.go the garbage collection of §3.
//
// A node is driven like any core.Machine:
//
//	n, _ := era.New(1, era.Config{N: 4}) // binary tree: parent p0, children p2, p3
//	effs, err := n.Step(core.Call(era.Contribute{A: 0, V: era.Flag(1)}), nil)
//	// carry out every EffSend, and give every message received back:
//	effs, err = n.Step(core.Receive(2, era.Up{A: 0, V: era.Flag(3)}), effs[:0])
//	// report every failure the detector discovers:
//	effs, err = n.Step(core.Suspect(0), effs[:0])
//
// The node emits core.Decide(a, v) when procedure Decision runs and
// core.Return(a, v) once the caller's Agreement(v, a) returns.
//
// Where the paper is ambiguous, or where its pseudocode contradicts its prose
// and proofs, the choice made is written next to the rule (search for
// "Ambiguity"); each literal reading that fails a §2.1 property is kept as a
// mutant (see Mutants).
package era
