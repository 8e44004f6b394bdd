package envtest

import (
	"errors"
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// imageReport is what compareImages measured: states and transitions of
// the plain and the reduced search, the distinct plain quiescent worlds
// (encodings) and the distinct reduced ones (keys), and the violated
// properties (equal in both).
type imageReport struct {
	states, reducedStates           int64
	transitions, reducedTransitions int64
	quiescent, reducedQuiescent     int
	violated                        string
}

// compareImages is the part CompareForget and CompareDrop share: a
// reduction that maps each world of the plain search to an image (image,
// a function of plain's worlds; the reduced model's worlds are their own
// images) must find the same violated properties, quiescent worlds that
// are exactly the images of the plain ones, without por no more states and
// exactly the images of the plain worlds, and counterexamples that replay
// to their violation on each model of replayOn. what names the reduction
// in errors ("forgetting").
func compareImages(plain, reduced *env.Model, image func(*env.World) (*env.World, error), maxStates int64, por bool, what string, replayOn []*env.Model) (imageReport, error) {
	var rep imageReport
	imageKey := func(w *env.World) (string, error) {
		iw, err := image(w)
		if err != nil {
			return "", err
		}
		return string(plain.Encode(nil, iw)), nil
	}
	same := func(w *env.World) (string, error) { return string(reduced.Encode(nil, w)), nil }
	pres, pq, pn, pall, err := dfsKeys(plain, nil, maxStates, por, !por, imageKey)
	if err != nil {
		return rep, err
	}
	rres, rq, _, rall, err := dfsKeys(reduced, nil, maxStates, por, !por, same)
	if err != nil {
		return rep, err
	}
	rep = imageReport{states: pres.States, reducedStates: rres.States, transitions: pres.Transitions,
		reducedTransitions: rres.Transitions, quiescent: pn, reducedQuiescent: len(rq), violated: violated(pres)}
	name := fmt.Sprintf("%s (por %v)", reduced.Name(), por)
	switch {
	case violated(rres) != rep.violated:
		return rep, fmt.Errorf("%s: violated {%s} without %s, {%s} with", name, rep.violated, what, violated(rres))
	case !por && rres.States > pres.States:
		return rep, fmt.Errorf("%s: %d states with %s, %d without", name, rres.States, what, pres.States)
	case !sameKeys(pq, rq):
		return rep, fmt.Errorf("%s: %d quiescent worlds with %s, %d images of the plain ones, not the same", name, len(rq), what, len(pq))
	case !por && !sameKeys(pall, rall):
		return rep, fmt.Errorf("%s: %d worlds with %s, %d images of the plain ones, not the same", name, len(rall), what, len(pall))
	}
	for _, tr := range rres.Violations {
		for _, m := range replayOn {
			_, err := checker.Replay[*env.World](m, tr)
			var ve *checker.ViolationError
			if !errors.As(err, &ve) || ve.Violation.Property != tr.Violation.Property {
				return rep, fmt.Errorf("%s: the counterexample of %s found with %s does not replay to it on %s: %v", name, tr.Violation.Property, what, m.Name(), err)
			}
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
