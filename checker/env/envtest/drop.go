package envtest

import (
	"errors"
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// DropReport compares a depth-first search of a model that drops absorbed
// messages (env.Config.DropAbsorbed) against the same model without.
type DropReport struct {
	// States, Transitions: distinct states and generated transitions,
	// without and with dropping.
	States, DropStates           int64
	Transitions, DropTransitions int64
	// Quiescent is the number of distinct quiescent worlds (equal in both).
	Quiescent int
	// Violated lists the properties violated (equal in both), sorted,
	// comma-separated.
	Violated string
}

// CompareDrop runs checker.DFS on plain and on drop, the same model without
// and with env.Config.DropAbsorbed, each with persistent sets when por,
// continuing after violations and bounded by maxStates, with their
// properties other than Eventually ones and one more that records the
// quiescent worlds (plain's mapped through plain.WithoutAbsorbed, drop's
// as they are, by encoding). It returns an error (ErrIncomplete wrapped
// for a search stopped at its bound) unless drop drops and plain does not,
// the two find the same violated properties and the same quiescent worlds,
// the dropping search visits no more states than the plain one (without
// por), and every counterexample of the dropping search replays to its
// violation on its model. Without por it also asks that the worlds the
// dropping search visits are exactly the images of the plain search's
// (env absorb_drop.go's δ). Counterexamples are not replayed across: a
// Deliver names its message by its rank among the sender's in the inbox,
// which the dropped messages shift.
func CompareDrop(plain, drop *env.Model, maxStates int64, por bool) (DropReport, error) {
	var rep DropReport
	if plain.DropsAbsorbed() || !drop.DropsAbsorbed() {
		return rep, fmt.Errorf("envtest: CompareDrop(%s, %s): want a plain model and a dropping one", plain.Name(), drop.Name())
	}
	image := func(w *env.World) (string, error) {
		dw, err := plain.WithoutAbsorbed(w)
		if err != nil {
			return "", err
		}
		return string(plain.Encode(nil, dw)), nil
	}
	same := func(w *env.World) (string, error) { return string(drop.Encode(nil, w)), nil }
	pres, pq, _, pall, err := dfsKeys(plain, maxStates, por, !por, image)
	if err != nil {
		return rep, err
	}
	dres, dq, _, dall, err := dfsKeys(drop, maxStates, por, !por, same)
	if err != nil {
		return rep, err
	}
	rep = DropReport{States: pres.States, DropStates: dres.States, Transitions: pres.Transitions,
		DropTransitions: dres.Transitions, Quiescent: len(pq), Violated: violated(pres)}
	name := fmt.Sprintf("%s (por %v)", drop.Name(), por)
	switch {
	case violated(dres) != rep.Violated:
		return rep, fmt.Errorf("%s: violated {%s} without dropping, {%s} with", name, rep.Violated, violated(dres))
	case !por && dres.States > pres.States:
		return rep, fmt.Errorf("%s: %d states with dropping, %d without", name, dres.States, pres.States)
	case !sameKeys(pq, dq):
		return rep, fmt.Errorf("%s: %d quiescent worlds with dropping, %d images of the plain ones, not the same", name, len(dq), len(pq))
	case !por && !sameKeys(pall, dall):
		return rep, fmt.Errorf("%s: %d worlds with dropping, %d images of the plain ones, not the same", name, len(dall), len(pall))
	}
	for _, tr := range dres.Violations {
		_, err := checker.Replay[*env.World](drop, tr)
		var ve *checker.ViolationError
		if !errors.As(err, &ve) || ve.Violation.Property != tr.Violation.Property {
			return rep, fmt.Errorf("%s: the counterexample of %s does not replay to it: %v", name, tr.Violation.Property, err)
		}
	}
	return rep, nil
}

// sameKeys reports whether a and b hold the same keys.
func sameKeys(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
