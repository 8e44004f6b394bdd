package era

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/props"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// ERA property names, as ftcheck --property takes them.
const (
	Termination      = "termination"
	Irrevocability   = "irrevocability"
	Agreement        = "agreement"
	UniformAgreement = "uniform-agreement"
	Participation    = "participation"
	Validity         = "validity"
)

// Properties returns the properties of the Early Returning Agreement over
// worlds of erasm.Node machines combining with op: the four of the paper's
// §2.1 (Termination, Irrevocability, Agreement, Participation), Validity,
// and Uniform Agreement, which ERA is known not to have (§1.1, footnote 1)
// and is therefore marked ExpectFail.
//
// Under the ulfm op the inputs are AckAgree calls, whose contribution the
// node resolves from S_p at the call (Node.Input). That value is fixed by
// the call step itself, the step that adds the call to the world's calls
// made, and never changes afterwards, so a property reading it reads an
// input: participation reads the acting process's own (checker.ReadsStep),
// validity every process's (ReadsStep|ReadsInputs|ReadsFailures, as
// props.Validity declares).
func Properties(op erasm.Op) []checker.Property[*env.World] {
	uniform := props.Agreement(UniformAgreement,
		"no two processes, dead or alive, have decided differently (ERA is not uniform: §1.1 footnote 1; expected to fail)",
		true, same)
	uniform.ExpectFail = true
	return []checker.Property[*env.World]{
		props.Termination(Termination,
			"every live process that called Agreement(v, a) has returned a decision for a (§2.1 Termination, Theorem 3)",
			"Agreement", agreementCall),
		props.Irrevocability(Irrevocability,
			"a process never decides or returns a second, different value for an agreement, and Result never changes once set (§2.1, Theorem 1)",
			same, nodeResultKept),
		props.Agreement(Agreement,
			"no two live processes have decided differently for an agreement (§2.1 Agreement, Theorem 2: non-uniform); checked on every decision, the only steps that can break it",
			false, same),
		uniform,
		props.OnDecisions(Participation,
			"a process that decides v for a has called Agreement(c, a) and v includes c (§2.1 Participation, Theorem 4; §1.1's AND, union of failures, intersection of acknowledgements, written in semantics.go); checked on every decision",
			checker.ReadsStep,
			participation),
		props.Validity(Validity,
			"a decided value is §1.1's agreed value (AND of the flags; union of the failures, intersection of the acknowledged failures, under ulfm) over a set of contributions that includes every process alive at the decision",
			contribution, agreedOn, same),
		props.DetectorComplete("detector-complete", "at quiescence every crash has been reported to every live process: the perfect failure detector ERA assumes (§2.1, Lemma 1), checked rather than assumed"),
	}
}

// agreementCall: an Agreement(v, a) call expects a return for a.
func agreementCall(in core.Input) (uint64, bool) {
	c, ok := in.(erasm.Contribute)
	return c.A, ok
}

// nodeResultKept is Irrevocability's check of an erasm.Node actor.
func nodeResultKept(w *env.World, p core.Rank) error {
	if nn, ok := w.Node(p).(*erasm.Node); ok {
		return ResultKept(w, p, nn)
	}
	return nil
}

// contribution returns p's argument to Agreement(·, a), if p made that
// call: the input's value, or for AckAgree the contribution p's node
// resolved at the call, (flag, S_p, S_p).
func contribution(w *env.World, p core.Rank, a uint64) (core.Value, bool) {
	for _, in := range w.CallsMade(p) {
		switch c := in.(type) {
		case erasm.Contribute:
			if c.A == a {
				return c.V, true
			}
		case erasm.AckAgree:
			if c.A != a {
				continue
			}
			n, ok := w.Node(p).(*erasm.Node)
			if !ok || n.Input(a) == nil {
				return nil, false
			}
			return n.Input(a), true
		}
	}
	return nil, false
}

// same reports whether a and b are the same value: by typed equality for
// two erasm.Flag values (a Flag's encoding is its uvarint), else by their
// canonical encodings (props.SameEncoding).
func same(a, b core.Value) bool {
	if x, ok := a.(erasm.Flag); ok {
		if y, ok := b.(erasm.Flag); ok {
			return x == y
		}
	}
	return props.SameEncoding(a, b)
}

// ResultKept reports when node n, process p's ERA state in w, no longer
// holds as Result^a the value p first decided for a: a process remains
// decided on its decision (Theorem 1). It also catches a Result set and
// lost within one step.
func ResultKept(w *env.World, p core.Rank, n *erasm.Node) error {
	for _, r := range w.History(p) {
		if r.Kind != core.EffDecide {
			continue
		}
		if s := n.Result(r.Instance); s == nil || !same(r.Value, s) {
			return fmt.Errorf("%v decided %v for a=%d but its Result is now %v", p, r.Value, r.Instance, s)
		}
	}
	return nil
}

// participation checks one decision e of p: p called Agreement(c, a) and
// the decision includes c (semantics.go).
func participation(w *env.World, p core.Rank, r core.Effect) error {
	c, ok := contribution(w, p, r.Instance)
	if !ok {
		return fmt.Errorf("%v decided %v for a=%d without having called Agreement(·, %d)", p, r.Value, r.Instance, r.Instance)
	}
	if !includes(r.Value, c) {
		return fmt.Errorf("%v decided %v for a=%d, which does not include its contribution %v", p, r.Value, r.Instance, c)
	}
	return nil
}
