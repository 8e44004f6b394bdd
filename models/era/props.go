package era

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
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

// ERA returns the properties of the Early Returning Agreement over worlds of
// erasm.Node machines combining with op: the four of the paper's §2.1
// (Termination, Irrevocability, Agreement, Participation), Validity, and
// Uniform Agreement, which ERA is known not to have (§1.1, footnote 1) and
// is therefore marked ExpectFail.
func Properties(op erasm.Op) []checker.Property[*env.World] {
	return []checker.Property[*env.World]{
		{Name: Termination, Kind: checker.Quiescence,
			Doc:   "every live process that called Agreement(v, a) has returned a decision for a (§2.1 Termination, Theorem 3)",
			Check: termination},
		{Name: Irrevocability, Kind: checker.Transition,
			Doc:       "a process never decides or returns a second, different value for an agreement, and Result never changes once set (§2.1, Theorem 1)",
			CheckStep: irrevocability, Reads: checker.ReadsStep},
		{Name: Agreement, Kind: checker.Transition,
			Doc:       "no two live processes have decided differently for an agreement (§2.1 Agreement, Theorem 2: non-uniform); checked on every decision, the only steps that can break it",
			CheckStep: func(_ *env.World, _ checker.Action, next *env.World) error { return newAgreement(next) },
			Reads:     checker.ReadsState,
			// Stable: decisions are kept in histories, and only a crash
			// makes a live process dead.
			Stable: true},
		{Name: UniformAgreement, Kind: checker.Invariant, ExpectFail: true,
			Doc:   "no two processes, dead or alive, have decided differently (ERA is not uniform: §1.1 footnote 1; expected to fail)",
			Check: func(w *env.World) error { return agreement(w, true) }, Stable: true},
		{Name: Participation, Kind: checker.Transition,
			Doc:       "a process that decides v for a has called Agreement(c, a) and F(v, c) = v (§2.1 Participation, Theorem 4); checked on every decision",
			CheckStep: func(_ *env.World, _ checker.Action, next *env.World) error { return participation(next, op) },
			Reads:     checker.ReadsStep},
		{Name: Validity, Kind: checker.Transition,
			Doc:       "a decided value is F over a set of contributions that includes every process alive at the decision",
			CheckStep: func(_ *env.World, _ checker.Action, next *env.World) error { return validity(next, op) },
			Reads:     checker.ReadsStep | checker.ReadsInputs | checker.ReadsFailures},
	}
}

// contribution returns p's argument to Agreement(·, a), if p made that call.
func contribution(w *env.World, p core.Rank, a uint64) (core.Value, bool) {
	for _, in := range w.CallsMade(p) {
		if c, ok := in.(erasm.Contribute); ok && c.A == a {
			return c.V, true
		}
	}
	return nil, false
}

// same reports whether a and b have the same canonical encoding: by typed
// equality for two erasm.Flag values (a Flag's encoding is its uvarint), else
// by encoding both into pooled buffers.
func same(a, b core.Value) bool {
	if x, ok := a.(erasm.Flag); ok {
		if y, ok := b.(erasm.Flag); ok {
			return x == y
		}
	}
	bufs := sameBufs.Get().(*[2][]byte)
	bufs[0] = a.AppendBinary(bufs[0][:0])
	bufs[1] = b.AppendBinary(bufs[1][:0])
	eq := bytes.Equal(bufs[0], bufs[1])
	sameBufs.Put(bufs)
	return eq
}

var sameBufs = sync.Pool{New: func() any { return new([2][]byte) }}

func termination(w *env.World) error {
	for p := core.Rank(0); int(p) < w.N(); p++ {
		if w.Crashed(p) {
			continue
		}
	calls:
		for _, in := range w.CallsMade(p) {
			c, ok := in.(erasm.Contribute)
			if !ok {
				continue
			}
			for _, r := range w.History(p) {
				if r.Kind == core.EffReturn && r.Instance == c.A {
					continue calls
				}
			}
			return fmt.Errorf("%v is alive, called Agreement(a=%d) and never returned, yet nothing is left to deliver, detect or call", p, c.A)
		}
	}
	return nil
}

func irrevocability(prev *env.World, _ checker.Action, next *env.World) error {
	if err := HistoryIrrevocable(prev, next); err != nil {
		return err
	}
	p := next.LastActor()
	if p == core.NoRank || !p.Valid(next.N()) {
		return nil
	}
	if nn, ok := next.Node(p).(*erasm.Node); ok {
		return ResultKept(next, p, nn)
	}
	return nil
}

// HistoryIrrevocable reports a decision or return made in the last step
// that differs from an earlier decision or return of the same process for
// the same agreement (§2.1, Theorem 1). prev and next are the worlds before
// and after the step.
func HistoryIrrevocable(prev, next *env.World) error {
	p := next.LastActor()
	if p == core.NoRank || !p.Valid(next.N()) {
		return nil
	}
	old := prev.History(p)
	for _, e := range next.LastEffects() {
		if e.Kind != core.EffDecide && e.Kind != core.EffReturn {
			continue
		}
		for _, r := range old {
			if r.Kind == e.Kind && r.Instance == e.Instance && !same(r.Value, e.Value) {
				return fmt.Errorf("%v had %s %v for a=%d and now %s %v", p, verb(r.Kind), r.Value, e.Instance, verb(e.Kind), e.Value)
			}
		}
	}
	return nil
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

func verb(k core.EffectKind) string {
	if k == core.EffReturn {
		return "returned"
	}
	return "decided"
}

// newAgreement compares each decision made in the last step with every
// decision of every other live process (a process's first one, unless it
// decided twice, which irrevocability reports). Crashes only remove
// processes from the comparison, so a disagreement among live processes can
// first appear only at a decision: checking decisions is checking the
// invariant Bad = "two live processes have decision records for one
// agreement with different values". Exactly: the step fails ⇒ Bad(next),
// and ¬Bad(prev) ∧ Bad(next) ⇒ the step fails (only the actor's records
// are new), which is what checker.ReadsState asks.
func newAgreement(w *env.World) error {
	p := w.LastActor()
	for _, e := range w.LastEffects() {
		if e.Kind != core.EffDecide {
			continue
		}
		for q := core.Rank(0); int(q) < w.N(); q++ {
			if q == p || w.Crashed(q) {
				continue
			}
			for _, r := range w.History(q) {
				if r.Kind == core.EffDecide && r.Instance == e.Instance && !same(r.Value, e.Value) {
					return fmt.Errorf("live processes %v and %v decided %v and %v for a=%d", q, p, r.Value, e.Value, e.Instance)
				}
			}
		}
	}
	return nil
}

// agreement checks the whole state: every (live, unless uniform) process's
// first decision per agreement is the same.
func agreement(w *env.World, uniform bool) error {
	type first struct {
		p core.Rank
		v core.Value
	}
	seen := map[uint64]first{}
	for p := core.Rank(0); int(p) < w.N(); p++ {
		if !uniform && w.Crashed(p) {
			continue
		}
		for _, r := range w.History(p) {
			if r.Kind != core.EffDecide {
				continue
			}
			f, ok := seen[r.Instance]
			if !ok {
				seen[r.Instance] = first{p, r.Value}
				continue
			}
			if !same(f.v, r.Value) {
				alive := "live "
				if uniform {
					alive = ""
				}
				return fmt.Errorf("%sprocesses %v and %v decided %v and %v for a=%d", alive, f.p, p, f.v, r.Value, r.Instance)
			}
		}
	}
	return nil
}

// participation checks the decisions made in the last step.
func participation(w *env.World, op erasm.Op) error {
	p := w.LastActor()
	for _, r := range w.LastEffects() {
		if r.Kind != core.EffDecide {
			continue
		}
		c, ok := contribution(w, p, r.Instance)
		if !ok {
			return fmt.Errorf("%v decided %v for a=%d without having called Agreement(·, %d)", p, r.Value, r.Instance, r.Instance)
		}
		if !same(op.Combine(r.Value, c), r.Value) {
			return fmt.Errorf("%v decided %v for a=%d, which does not include its contribution %v", p, r.Value, r.Instance, c)
		}
	}
	return nil
}

// validity checks every decision made in the last step. F is a semilattice
// join, so a set C with alive ⊆ C ⊆ contributors and F(C) = v exists
// exactly when v = F(alive contributions ∪ {crashed contributions x ≤ v}),
// where x ≤ v means F(v, x) = v: no enumeration of subsets is needed.
func validity(w *env.World, op erasm.Op) error {
	for _, e := range w.LastEffects() {
		if e.Kind != core.EffDecide {
			continue
		}
		a, v := e.Instance, e.Value
		var join core.Value
		for q := core.Rank(0); int(q) < w.N(); q++ {
			c, ok := contribution(w, q, a)
			switch {
			case !w.Crashed(q) && !ok:
				return fmt.Errorf("%v decided %v for a=%d while %v is alive and has not contributed", w.LastActor(), v, a, q)
			case !w.Crashed(q):
				join = op.Combine(join, c)
			case ok && same(op.Combine(v, c), v):
				join = op.Combine(join, c)
			}
		}
		if join == nil || !same(join, v) {
			return fmt.Errorf("%v decided %v for a=%d, which is not F over any set of contributions that includes every live process (live and compatible contributions give %v)", w.LastActor(), v, a, join)
		}
	}
	return nil
}
