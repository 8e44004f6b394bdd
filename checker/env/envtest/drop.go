package envtest

import (
	"fmt"

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
	if plain.DropsAbsorbed() || !drop.DropsAbsorbed() {
		return DropReport{}, fmt.Errorf("envtest: CompareDrop(%s, %s): want a plain model and a dropping one", plain.Name(), drop.Name())
	}
	r, err := compareImages(plain, drop, plain.WithoutAbsorbed, maxStates, por, "dropping", []*env.Model{drop})
	return DropReport{States: r.states, DropStates: r.reducedStates, Transitions: r.transitions,
		DropTransitions: r.reducedTransitions, Quiescent: r.reducedQuiescent, Violated: r.violated}, err
}
