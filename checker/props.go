package checker

import (
	"fmt"
	"slices"
)

// propSet is the properties one run checks, split by kind. Each entry keeps
// its index in Model.Properties so that results can be ordered the same way
// whatever the run.
type propSet[S any] struct {
	all   []Property[S]
	inv   []int // indexes into all
	quiet []int
	trans []int
	ev    []int // Eventually
}

// selectProperties picks the properties to check: when names is empty,
// every property not marked ExpectFail; otherwise exactly the named ones
// (an unknown name is an error).
func selectProperties[S any](all []Property[S], names []string) (*propSet[S], error) {
	ps := &propSet[S]{all: all}
	for _, n := range names {
		if !slices.ContainsFunc(all, func(p Property[S]) bool { return p.Name == n }) {
			return nil, fmt.Errorf("checker: unknown property %q", n)
		}
	}
	for i, p := range all {
		if len(names) == 0 && p.ExpectFail || len(names) > 0 && !slices.Contains(names, p.Name) {
			continue
		}
		switch p.Kind {
		case Invariant:
			if p.Check == nil {
				return nil, fmt.Errorf("checker: invariant %q has no Check", p.Name)
			}
			ps.inv = append(ps.inv, i)
		case Quiescence:
			if p.Check == nil {
				return nil, fmt.Errorf("checker: quiescence property %q has no Check", p.Name)
			}
			ps.quiet = append(ps.quiet, i)
		case Transition:
			if p.CheckStep == nil {
				return nil, fmt.Errorf("checker: transition property %q has no CheckStep", p.Name)
			}
			ps.trans = append(ps.trans, i)
		case Eventually:
			if p.Check == nil {
				return nil, fmt.Errorf("checker: eventually property %q has no Check", p.Name)
			}
			ps.ev = append(ps.ev, i)
		default:
			return nil, fmt.Errorf("checker: property %q has unknown kind %v", p.Name, p.Kind)
		}
	}
	return ps, nil
}

// checkState checks the invariants of s, then (when quiescent) the
// quiescence properties and the Eventually properties (quiescentErr), in
// model order. It returns the index of the first property that fails and
// its error, or -1 and nil.
func (ps *propSet[S]) checkState(m Model[S], s S) (int, error) {
	for _, i := range ps.inv {
		if err := ps.all[i].Check(s); err != nil {
			return i, err
		}
	}
	if (len(ps.quiet) > 0 || len(ps.ev) > 0) && m.Quiescent(s) {
		for _, i := range ps.quiet {
			if err := ps.all[i].Check(s); err != nil {
				return i, err
			}
		}
		for _, i := range ps.ev {
			if err := ps.all[i].Check(s); err != nil {
				return i, quiescentErr(err)
			}
		}
	}
	return -1, nil
}

// quiescentErr is the error of an Eventually property that fails at a
// quiescent state: the run may end there without it ever holding.
func quiescentErr(err error) error {
	return fmt.Errorf("the run may end here (quiescent state) without it: %w", err)
}

// checkStep checks the transition properties of (prev, a, next).
func (ps *propSet[S]) checkStep(prev S, a Action, next S) (int, error) {
	for _, i := range ps.trans {
		if err := ps.all[i].CheckStep(prev, a, next); err != nil {
			return i, err
		}
	}
	return -1, nil
}

// violation builds the Violation record of property i failing with err
// after steps steps.
func (ps *propSet[S]) violation(i int, err error, steps int) *Violation {
	p := ps.all[i]
	return &Violation{Property: p.Name, Kind: p.Kind.String(), Message: err.Error(), Steps: steps}
}
