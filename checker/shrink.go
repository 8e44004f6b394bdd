package checker

import "slices"

// Shrink returns a shorter trace from the same initial state that violates
// the same property as tr (its message may differ), by delta debugging on
// the schedule: it tries removing chunks of steps, halving the chunk size
// down to single steps, and repeats until no single step can be removed.
// Actions are replayed by value; a candidate in which some action is not
// enabled, or that fails another way, is rejected. A candidate that fails
// early is cut at its violation. The result is 1-minimal: removing any one
// of its steps loses the violation. Compare len(tr.Steps) with the result's
// to see the gain.
//
// The result keeps Model and Params, drops Seed (a walk's seed no longer
// reproduces it) and has Violation.Steps == len(Steps). When tr has no
// Violation, is a lasso, or does not reproduce its violation under Replay,
// Shrink returns tr unchanged.
func Shrink[S any](m Model[S], tr *Trace) *Trace {
	if tr.Violation == nil || tr.Loop > 0 {
		return tr
	}
	ps, err := traceProperties(m, tr)
	if err != nil {
		return tr
	}
	want := tr.Violation.Property
	test := func(acts []Action) *Violation {
		_, v, err := replayActions(m, tr.Init, acts, ps)
		if err != nil || v == nil || v.Property != want {
			return nil
		}
		return v
	}
	acts := make([]Action, len(tr.Steps))
	for i, s := range tr.Steps {
		acts[i] = s.Action
	}
	v := test(acts)
	if v == nil {
		return tr
	}
	acts = acts[:v.Steps]
	for changed := true; changed; {
		changed = false
		for k := max(len(acts)/2, 1); k >= 1 && len(acts) > 0; k /= 2 {
			for start := 0; start+k <= len(acts); {
				cand := slices.Concat(acts[:start], acts[start+k:])
				if cv := test(cand); cv != nil {
					acts, v, changed = cand[:cv.Steps], cv, true
				} else {
					start += k
				}
			}
		}
	}
	steps, err := describe(m, m.Init()[tr.Init], acts)
	if err != nil {
		return tr
	}
	out := &Trace{Model: tr.Model, Init: tr.Init, Steps: steps, Violation: v}
	if tr.Params != nil {
		out.Params = make(map[string]string, len(tr.Params))
		for k, val := range tr.Params {
			out.Params[k] = val
		}
	}
	return out
}
