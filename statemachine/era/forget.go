package era

import (
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Forget is the state the model keeps of a crashed process (the
// environment's Forgetter, used by checker/env Config.ForgetCrashed): p,
// its Config, and per agreement a the input of its call Agreement(v, a)
// (Node.Input) and Result_p^a; S_p, Status, Current, Contributed and
// RequestedResult are reset to their defaults (the tree with them). The
// receiver is unchanged.
//
// Why these two (models/era props.go): a crashed process never steps again
// (crash-stop, SC'15 §2.1: "processes fail by crashing"), so its variables
// of Parts 1–4 no longer influence any run; only the properties read it.
// Validity reads every process's contribution, crashed ones included, and
// under the ulfm op that is the Input the node resolved at the call,
// (flag, S_p, S_p), not the schedule's; Irrevocability (Theorem 1) reads
// the actor's Result after every step, and the actor of a crash step is
// the crashed process, whose node after that step is the forgotten one.
// Keeping Result whole, rather than only the decided ones, keeps that
// verdict identical under every mutant too (MutantGCDropsResult drops a
// Result at a live process). Everything else the properties read is the
// environment's (histories, calls, the crashed set). The reset fields are
// those the garbage collection of §3 reclaims (agreement.collect), plus
// S_p.
//
// Forget is a function of the node's state (its encoding, rank and
// Config), idempotent, and DecodeNode reads its encoding back (a record
// in notcontributed with only an input and a Result is what collect
// leaves under Config.GC).
func (n *Node) Forget() core.Machine {
	c := &Node{p: n.p, cfg: n.cfg}
	if len(n.ags) <= len(c.one) {
		c.ags = c.one[:0:len(c.one)]
	}
	for _, g := range n.ags {
		kept := agreement{a: g.a, input: n.forgottenInput(g.input), result: n.forgottenResult(g.result)}
		if !kept.isDefault() {
			c.ags = append(c.ags, kept)
		}
	}
	c.refreshTree()
	return c
}

// ForgetMutants are deliberately wrong Forget variants, for the test that
// the forgetting guard (models/all TestForgetSoundness) catches a Forget
// that drops what a property reads. They are not protocol mutants: without
// forgetting they change nothing, so they are not in Mutants and --mutant
// does not take them; a Config may name them (tests only).
var ForgetMutants = []mutant.Name{MutantForgetDropsResult, MutantForgetDropsInput}

// MutantForgetDropsResult makes Forget drop Result_p^a, which
// Irrevocability reads of the actor of a crash step.
const MutantForgetDropsResult = mutant.Name("forget-drops-result")

// forgottenResult is MutantForgetDropsResult's hook in Forget: the Result
// kept.
func (n *Node) forgottenResult(v Value) Value {
	if n.cfg.Mutant == MutantForgetDropsResult {
		return nil // mutant: Result forgotten
	}
	return v
}

// MutantForgetDropsInput makes Forget drop the input the node resolved at
// its call (Node.Input), which validity reads of a crashed process under
// the ulfm op (its contribution, (flag, S_p, S_p)).
const MutantForgetDropsInput = mutant.Name("forget-drops-input")

// forgottenInput is MutantForgetDropsInput's hook in Forget: the input
// kept.
func (n *Node) forgottenInput(v Value) Value {
	if n.cfg.Mutant == MutantForgetDropsInput {
		return nil // mutant: the input forgotten
	}
	return v
}
