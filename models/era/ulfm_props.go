package era

import (
	"bytes"
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/props"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// ulfmProps are the properties of ERA (ERA) restated for worlds of
// erasm.App machines, where the contributions are the App's calls rather than
// the environment's schedule, plus the benchmark program's own. At N = 6000
// no check may cost O(N) per step: Agreement, Participation and Validity are
// checked on the steps that decide (a transition form of the invariants,
// equivalent by induction on the run: a new decision is compared with a live
// process that decided before, and every live decider agrees with it), and
// Validity only on the decisions that do not merely copy an existing one
// (a root's), so each costs O(N) a few times per agreement.
func ulfmProps() []checker.Property[*env.World] {
	return []checker.Property[*env.World]{
		{Name: Termination, Kind: checker.Quiescence,
			Doc:   "every live process ran the whole benchmark program: every agreement it called returned (§2.1 Termination, Theorem 3)",
			Check: ulfmTermination},
		unread(props.Irrevocability(Irrevocability,
			"a process never decides or returns a second, different value for an agreement, and Result never changes once set (§2.1, Theorem 1)",
			sameValue, appResultKept)),
		{Name: Agreement, Kind: checker.Transition,
			Doc:       "no two live processes decide differently for an agreement, error code (Failed ⊄ Acked) included (§2.1 Agreement, Theorem 2: non-uniform); checked at each decision",
			CheckStep: ulfmAgreementProp},
		props.OnDecisions(Participation,
			"a process that decides v for a called Agreement(c, a) and F(v, c) = v (§2.1 Participation, Theorem 4)",
			checker.ReadsAnything, ulfmParticipation),
		{Name: Validity, Kind: checker.Transition,
			Doc:       "a decided value is F over a set of contributions that includes every process alive at the decision, and of failures of crashed processes (no process alive is reported failed: §1.1)",
			CheckStep: ulfmValidity},
		{Name: ULFMException, Kind: checker.Transition,
			Doc:       "MPIX_Comm_agree raises PROC_FAILED unless every process's contribution is in the value or its failure was acknowledged by every participant (§1.1)",
			CheckStep: ulfmException},
	}
}

// ULFMException is the name of the property of §1.1 that a value decided
// without error includes every contribution but those of failures all
// participants acknowledged.
const ULFMException = "ulfm-exception"

// originDecisions calls f for each decision of the last step that does not
// copy an earlier decision of a live process.
func originDecisions(next *env.World, f func(p core.Rank, a uint64, v erasm.Contribution) error) error {
	p := next.LastActor()
	if p == core.NoRank {
		return nil
	}
	for _, e := range next.LastEffects() {
		if e.Kind != core.EffDecide {
			continue
		}
		v, ok := e.Value.(erasm.Contribution)
		if !ok {
			return fmt.Errorf("%v decided %v (%T) for a=%d: not a ULFM contribution", p, e.Value, e.Value, e.Instance)
		}
		if q, u := otherDecider(next, p, e.Instance); q != core.NoRank && sameValue(u, v) {
			continue
		}
		if err := f(p, e.Instance, v); err != nil {
			return err
		}
	}
	return nil
}

func ulfmException(_ *env.World, _ checker.Action, next *env.World) error {
	return originDecisions(next, func(p core.Rank, a uint64, v erasm.Contribution) error {
		if raisesProcFailed(v) {
			return nil
		}
		for q := core.Rank(0); int(q) < next.N(); q++ {
			if v.Acked.Has(q) {
				continue
			}
			var c erasm.Contribution
			called := false
			if app := appOf(next, q); app != nil {
				c, called = app.Contribution(a)
			}
			if !called || !includes(v, c) {
				return fmt.Errorf("%v decided %v for a=%d without error, but %v's contribution is not in it and its failure is not acknowledged by all", p, v, a, q)
			}
		}
		return nil
	})
}

func appOf(w *env.World, p core.Rank) *erasm.App {
	a, _ := w.Node(p).(*erasm.App)
	return a
}

// sameValue compares two decided values without allocating for ULFM ones.
func sameValue(a, b core.Value) bool {
	x, ok1 := a.(erasm.Contribution)
	y, ok2 := b.(erasm.Contribution)
	if ok1 && ok2 {
		return x.Flag == y.Flag && x.Failed.Equal(y.Failed) && x.Acked.Equal(y.Acked)
	}
	return bytes.Equal(a.AppendBinary(nil), b.AppendBinary(nil))
}

func ulfmTermination(w *env.World) error {
	for p := core.Rank(0); int(p) < w.N(); p++ {
		if w.Crashed(p) {
			continue
		}
		app := appOf(w, p)
		if app == nil {
			return fmt.Errorf("%v is not an erasm.App", p)
		}
		for a, c := range app.Calls() {
			if !c.Returned {
				return fmt.Errorf("%v is alive, called Agreement(a=%d) (%v) and never returned, yet nothing is left to deliver, detect or call", p, a, c.Phase)
			}
		}
		if ph := app.Phase(); ph != erasm.PhaseDone && ph != erasm.PhaseKilled {
			return fmt.Errorf("%v is alive and its program stopped in phase %v", p, ph)
		}
	}
	return nil
}

// appResultKept is Irrevocability's check of an erasm.App actor.
func appResultKept(w *env.World, p core.Rank) error {
	if na := appOf(w, p); na != nil {
		return ResultKept(w, p, na.Node())
	}
	return nil
}

// unread clears a property's Reads: the ULFM benchmark's properties
// declare none (they run in random walks only, where Reads is not used).
func unread(p checker.Property[*env.World]) checker.Property[*env.World] {
	p.Reads = checker.ReadsAnything
	return p
}

// decidedBy returns the value p decided for a, or nil.
func decidedBy(w *env.World, p core.Rank, a uint64) core.Value {
	for _, r := range w.History(p) {
		if r.Kind == core.EffDecide && r.Instance == a {
			return r.Value
		}
	}
	return nil
}

// otherDecider returns the lowest live process other than p that decided
// a, and its value; NoRank if none. Decisions spread from a root, a low
// rank, so the scan usually stops early.
func otherDecider(w *env.World, p core.Rank, a uint64) (core.Rank, core.Value) {
	for q := core.Rank(0); int(q) < w.N(); q++ {
		if q == p || w.Crashed(q) {
			continue
		}
		if v := decidedBy(w, q, a); v != nil {
			return q, v
		}
	}
	return core.NoRank, nil
}

func ulfmAgreementProp(_ *env.World, _ checker.Action, next *env.World) error {
	p := next.LastActor()
	if p == core.NoRank || next.Crashed(p) {
		return nil
	}
	for _, e := range next.LastEffects() {
		if e.Kind != core.EffDecide {
			continue
		}
		if q, v := otherDecider(next, p, e.Instance); q != core.NoRank && !sameValue(v, e.Value) {
			return fmt.Errorf("live processes %v and %v decided %v and %v for a=%d", q, p, v, e.Value, e.Instance)
		}
	}
	return nil
}

// ulfmParticipation checks one decision e of p: p's App called
// Agreement(c, a) and F(v, c) = v.
func ulfmParticipation(w *env.World, p core.Rank, e core.Effect) error {
	app := appOf(w, p)
	if app == nil {
		return fmt.Errorf("%v is not an erasm.App", p)
	}
	c, ok := app.Contribution(e.Instance)
	if !ok {
		return fmt.Errorf("%v decided %v for a=%d without having called Agreement(·, %d)", p, e.Value, e.Instance, e.Instance)
	}
	if !includes(e.Value, c) {
		return fmt.Errorf("%v decided %v for a=%d, which does not include its contribution %v", p, e.Value, e.Instance, c)
	}
	return nil
}

// ulfmValidity checks the decisions of the last step that do not copy a
// live process's earlier decision (those were checked when made, and the
// set of live processes only shrinks). F is a semilattice join, so a set C
// of contributions, with every live one, and failure contributions
// (^0, {q}, all) of crashed q, joins to v exactly when v equals the join of
// the live contributions, the crashed ones below v and the failures of
// v.Failed that crashed.
func ulfmValidity(_ *env.World, _ checker.Action, next *env.World) error {
	return originDecisions(next, func(p core.Rank, a uint64, v erasm.Contribution) error {
		var join core.Value
		for q := core.Rank(0); int(q) < next.N(); q++ {
			app := appOf(next, q)
			var c erasm.Contribution
			called := false
			if app != nil {
				c, called = app.Contribution(a)
			}
			switch {
			case !next.Crashed(q) && !called:
				return fmt.Errorf("%v decided %v for a=%d while %v is alive and has not contributed", p, v, a, q)
			case !next.Crashed(q):
				join = agreedOn(join, c)
			case called && includes(v, c):
				join = agreedOn(join, c)
			}
		}
		var bad core.RankSet
		v.Failed.Each(func(q core.Rank) {
			if !q.Valid(next.N()) || !next.Crashed(q) {
				bad.Add(q)
			}
		})
		if !bad.Empty() {
			return fmt.Errorf("%v decided %v for a=%d, which reports %v failed while alive", p, v, a, bad)
		}
		// The failure contributions (^0, {q}, all) of crashed q in v.Failed
		// leave the flag and the acknowledged failures as they are.
		j, _ := join.(erasm.Contribution)
		want := erasm.Contribution{Flag: j.Flag, Acked: j.Acked}
		j.Failed.Each(func(q core.Rank) { want.Failed.Add(q) })
		v.Failed.Each(func(q core.Rank) { want.Failed.Add(q) })
		if join == nil || !sameValue(want, v) {
			return fmt.Errorf("%v decided %v for a=%d, which is not F over any set of contributions that includes every live process (live and compatible contributions and failures give %v)", p, v, a, want)
		}
		return nil
	})
}
