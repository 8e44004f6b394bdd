package envtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// EventuallyReport compares the Eventually (lasso) verdicts of a model that
// forgets crashed processes (env.Config.ForgetCrashed) against the same
// model without forgetting.
type EventuallyReport struct {
	// Properties is the number of Eventually properties of the model (0:
	// nothing was searched).
	Properties int
	// States, Transitions: distinct states and generated transitions of
	// the graph search, without and with forgetting.
	States, ForgetStates           int64
	Transitions, ForgetTransitions int64
	// Violated lists the Eventually properties violated (equal in both),
	// sorted, comma-separated.
	Violated string
	// Bounds lists the checker.Bound of each Eventually property that
	// holds (equal in both), "name: steps/time" joined by "; ".
	Bounds string
}

// CompareForgetEventually runs checker.DFS on plain and on forget, the
// same model without and with env.Config.ForgetCrashed, with their
// Eventually properties only (so the search is checker's graph search,
// which keeps every edge and looks for lassos: a reachable cycle or a
// quiescent world where the property never holds), continuing after
// violations and bounded by maxStates. It returns an error
// (ErrIncomplete wrapped for a search stopped at its bound) unless forget
// forgets and plain does not, the two find the same violated Eventually
// properties, report the same bound (checker.Bound: the most steps and
// time spent in ¬P) for each one that holds, and every counterexample of
// the forgetting search (a lasso, or a path to a quiescent world) replays
// to its violation on both models. A model without Eventually properties
// gives a report with Properties 0 and no error.
//
// Why the bounds are equal too (forget.go's argument, edge by edge): φ
// (Model.Forgotten) maps the plain graph onto the forgetting graph, an
// edge w −a→ w' to φ(w) −a→ φ(w'), with the same verdicts at both ends; a
// path of the forgetting graph from φ(w) lifts to a path of the plain
// graph from w with the same actions (w and φ(w) enable the same actions,
// and Apply commutes with φ). So every stretch of ¬P states of one graph
// is a stretch of the other, of the same length and the same elapsed time
// (checker.Timed reads the actions): the longest are the same. A cycle
// lies within one set of crashed processes (it only grows), whose nodes
// stay put along it, so a cycle lifts to a cycle.
func CompareForgetEventually(plain, forget *env.Model, maxStates int64) (EventuallyReport, error) {
	return compareEventually(plain, nil, forget, nil, maxStates)
}

// CompareForgetEventuallySymmetric is CompareForgetEventually with both
// searches under checker.Options.Symmetry (the graph of symmetry classes:
// checker/eventually.go lifts a lasso of classes to a real one and reports
// the bounds of the real graph). Under CompareForgetSymmetric's premise
// (P), φ maps classes to classes, and the quotient of the forgetting graph
// is the image of the quotient of the plain graph, with the same lifting
// argument as above: the same violated properties and the same bounds.
func CompareForgetEventuallySymmetric(plain, forget Symmetric, maxStates int64) (EventuallyReport, error) {
	return compareEventually(plain.Env(), plain, forget.Env(), forget, maxStates)
}

// compareEventually is CompareForgetEventually, under symmetry when pc and
// fc (plain's and forget's canonical encoders) are not nil.
func compareEventually(plain *env.Model, pc checker.CanonicalEncoder[*env.World], forget *env.Model, fc checker.CanonicalEncoder[*env.World], maxStates int64) (EventuallyReport, error) {
	var rep EventuallyReport
	if plain.ForgetsCrashed() || !forget.ForgetsCrashed() {
		return rep, fmt.Errorf("envtest: CompareForgetEventually(%s, %s): want a plain model and a forgetting one", plain.Name(), forget.Name())
	}
	pres, n, err := searchEventually(plain, pc, maxStates)
	if err != nil || n == 0 {
		return rep, err
	}
	fres, _, err := searchEventually(forget, fc, maxStates)
	if err != nil {
		return rep, err
	}
	rep = EventuallyReport{Properties: n, States: pres.States, ForgetStates: fres.States, Transitions: pres.Transitions,
		ForgetTransitions: fres.Transitions, Violated: violated(pres), Bounds: bounds(pres)}
	name := fmt.Sprintf("%s (symmetry %v)", forget.Name(), fc != nil)
	switch {
	case violated(fres) != rep.Violated:
		return rep, fmt.Errorf("%s: Eventually properties violated {%s} without forgetting, {%s} with", name, rep.Violated, violated(fres))
	case bounds(fres) != rep.Bounds:
		return rep, fmt.Errorf("%s: Eventually bounds {%s} without forgetting, {%s} with", name, rep.Bounds, bounds(fres))
	}
	for _, tr := range fres.Violations {
		for _, m := range []*env.Model{forget, plain} {
			_, err := checker.Replay[*env.World](m, tr)
			var ve *checker.ViolationError
			if !errors.As(err, &ve) || ve.Violation.Property != tr.Violation.Property {
				return rep, fmt.Errorf("%s: the counterexample of %s found with forgetting does not replay to it on %s: %v", name, tr.Violation.Property, m.Name(), err)
			}
		}
	}
	return rep, nil
}

// searchEventually runs checker.DFS on m with its Eventually properties
// only (under Options.Symmetry with canon's key when canon is not nil),
// continuing after violations, and returns the result and the number of
// those properties (0: nothing run).
func searchEventually(m *env.Model, canon checker.CanonicalEncoder[*env.World], maxStates int64) (*checker.Result, int, error) {
	var props []checker.Property[*env.World]
	for _, p := range m.Properties() {
		if p.Kind == checker.Eventually {
			props = append(props, p)
		}
	}
	if len(props) == 0 {
		return nil, 0, nil
	}
	opt := checker.Options{ContinueAfterViolation: true, MaxStates: maxStates}
	rec := quietRecorder{Model: m, props: props}
	var res *checker.Result
	if canon != nil {
		opt.Symmetry = true
		res = checker.DFS[*env.World](symRecorder{rec, canon}, opt)
	} else {
		res = checker.DFS[*env.World](rec, opt)
	}
	name := fmt.Sprintf("%s (Eventually, symmetry %v)", m.Name(), canon != nil)
	switch {
	case res.Err != nil:
		return nil, 0, fmt.Errorf("%s: %w", name, res.Err)
	case !res.Complete:
		return nil, 0, fmt.Errorf("%s: %w (%s) after %d states", name, ErrIncomplete, res.Stop, res.States)
	case canon != nil && !res.Symmetry:
		return nil, 0, fmt.Errorf("%s: the search did not use the symmetry", name)
	}
	return res, len(props), nil
}

// bounds is r's Eventually bounds, sorted by property.
func bounds(r *checker.Result) string {
	var out []string
	for _, b := range r.Bounds {
		out = append(out, fmt.Sprintf("%s: %d/%d", b.Property, b.Steps, b.Time))
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}
