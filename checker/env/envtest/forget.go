package envtest

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// ForgetReport compares a depth-first search of a model that forgets
// crashed processes (env.Config.ForgetCrashed) against the same model
// without forgetting.
type ForgetReport struct {
	// States, Transitions: distinct states and generated transitions,
	// without and with forgetting.
	States, ForgetStates           int64
	Transitions, ForgetTransitions int64
	// Quiescent and ForgetQuiescent are the numbers of distinct quiescent
	// worlds without and with forgetting (the second equals the number of
	// distinct images of the first).
	Quiescent, ForgetQuiescent int
	// Violated lists the properties violated (equal in both), sorted,
	// comma-separated.
	Violated string
}

// CompareForget runs checker.DFS on plain and on forget, the same model
// without and with env.Config.ForgetCrashed, each with persistent sets
// when por, continuing after violations and bounded by maxStates, with
// their properties other than Eventually ones and one more that records
// the quiescent worlds: plain's mapped through plain.Forgotten, forget's
// as they are (by encoding). It returns an error (ErrIncomplete wrapped
// for a search stopped at its bound) unless forget forgets and plain does
// not, the two find the same violated properties, the forgetting search's
// quiescent worlds are exactly the images of the plain search's, the
// forgetting search visits no more states than the plain one (without
// por: with persistent sets the visited sets depend on the stack proviso),
// and every counterexample of the forgetting search replays to its
// violation on both models. Without por it also asks that the worlds the
// forgetting search visits are exactly the images of the plain search's
// (a model that never quiesces, such as ringfd's, has no quiescent world
// to compare).
func CompareForget(plain, forget *env.Model, maxStates int64, por bool) (ForgetReport, error) {
	if plain.ForgetsCrashed() || !forget.ForgetsCrashed() {
		return ForgetReport{}, fmt.Errorf("envtest: CompareForget(%s, %s): want a plain model and a forgetting one", plain.Name(), forget.Name())
	}
	r, err := compareImages(plain, forget, plain.Forgotten, maxStates, por, "forgetting", []*env.Model{forget, plain})
	return ForgetReport{States: r.states, ForgetStates: r.reducedStates, Transitions: r.transitions,
		ForgetTransitions: r.reducedTransitions, Quiescent: r.quiescent, ForgetQuiescent: r.reducedQuiescent,
		Violated: r.violated}, err
}

// dfsKeys runs DFS on m (with persistent sets when por) and returns the
// result, the set of key(w) over its quiescent worlds w, the number of
// those worlds (distinct encodings), and, when recordAll (never with por),
// the set of key(w) over every world visited.
//
// With canon not nil the search runs under Options.Symmetry with canon's
// EncodeCanonical as the visited-set key (one world per symmetry class;
// persistent sets are then off, checker.Options.POR): the quiescent and
// visited worlds recorded are the representatives the search happened to
// visit, so key should be a class function (a canonical key) for the sets
// to be comparable.
func dfsKeys(m *env.Model, canon checker.CanonicalEncoder[*env.World], maxStates int64, por, recordAll bool, key func(*env.World) (string, error)) (*checker.Result, map[string]bool, int, map[string]bool, error) {
	seen, worlds, all := map[string]bool{}, map[string]bool{}, map[string]bool{}
	every := checker.Property[*env.World]{Name: "envtest-world-record", Kind: checker.Invariant,
		Check: func(w *env.World) error {
			k, err := key(w)
			if err != nil {
				return fmt.Errorf("envtest: %w", err)
			}
			all[k] = true
			return nil
		}}
	rec := checker.Property[*env.World]{Name: "envtest-quiescent-record", Kind: checker.Quiescence,
		Check: func(w *env.World) error {
			k, err := key(w)
			if err != nil {
				return fmt.Errorf("envtest: %w", err)
			}
			seen[k] = true
			worlds[string(m.Encode(nil, w))] = true
			return nil
		}}
	var props []checker.Property[*env.World]
	for _, p := range m.Properties() {
		if p.Kind != checker.Eventually {
			props = append(props, p)
		}
	}
	props = append(props, rec)
	if recordAll && !por {
		// Only without persistent sets: an invariant that is not Stable
		// turns them off (checker.Persistent).
		props = append(props, every)
	}
	opt := checker.Options{POR: por, ContinueAfterViolation: true, MaxStates: maxStates}
	var res *checker.Result
	if canon != nil {
		opt.Symmetry = true
		res = checker.DFS[*env.World](symRecorder{quietRecorder{Model: m, props: props}, canon}, opt)
		if !res.Symmetry {
			return nil, nil, 0, nil, fmt.Errorf("%s: the search did not use the symmetry", m.Name())
		}
	} else {
		res = checker.DFS[*env.World](quietRecorder{Model: m, props: props}, opt)
	}
	if res.Err != nil {
		return nil, nil, 0, nil, fmt.Errorf("%s (por %v): %w", m.Name(), por, res.Err)
	}
	if !res.Complete {
		return nil, nil, 0, nil, fmt.Errorf("%s (por %v): %w (%s) after %d states", m.Name(), por, ErrIncomplete, res.Stop, res.States)
	}
	for _, tr := range res.Violations {
		if strings.HasPrefix(tr.Violation.Property, "envtest-") {
			return nil, nil, 0, nil, fmt.Errorf("%s (por %v): %s", m.Name(), por, tr.Violation)
		}
	}
	return res, seen, len(worlds), all, nil
}
