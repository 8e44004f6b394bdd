package checker

import (
	"fmt"
	"slices"
)

// Counterexamples of BFS: merging the workers' first violations of a level
// and rebuilding their paths from the per-level parent links.

func less(a, b vrec) bool { return a.pos < b.pos || a.pos == b.pos && a.act < b.act }

// collect merges the workers' violations of level d into counterexamples,
// and returns the first Apply error of the level.
func (x *search[S]) collect(d int) error {
	var apply *vrec
	best := map[int]vrec{}
	for _, w := range x.workers {
		if w.apply != nil && (apply == nil || less(*w.apply, *apply)) {
			apply = w.apply
		}
		w.apply = nil
		for p, r := range w.viol {
			if b, ok := best[p]; !ok || less(r, b) {
				best[p] = r
			}
		}
		clear(w.viol)
	}
	if apply != nil && apply.act < 0 {
		return fmt.Errorf("checker: state %d of depth %d: %w", apply.pos, d, apply.err)
	}
	if apply != nil {
		steps, _, _ := x.path(d, apply.pos, -1)
		return fmt.Errorf("checker: model bug: Apply of action %d at depth %d (after %d steps from init): %w", apply.act, d, len(steps), apply.err)
	}
	for p := range x.ps.all {
		r, ok := best[p]
		if !ok {
			continue
		}
		x.violated[p] = true
		steps, init, err := x.path(d, r.pos, r.act)
		if err != nil {
			return err
		}
		x.res.Violations = append(x.res.Violations, &Trace{
			Model:     x.res.Model,
			Init:      init,
			Steps:     steps,
			Violation: x.ps.violation(p, r.err, len(steps)),
		})
	}
	return nil
}

// path rebuilds the steps from an initial state to state pos of level d,
// followed by its action number act when act >= 0.
func (x *search[S]) path(d, pos, act int) ([]Step, int, error) {
	idx := make([]int, 0, d+1)
	if act >= 0 {
		idx = append(idx, act)
	}
	for l := d; l > 0; l-- {
		k := x.links[l][pos]
		idx = append(idx, int(k&actMask))
		pos = int(k >> actBits)
	}
	slices.Reverse(idx)
	init := int(x.links[0][pos])
	s := x.inits[init]
	acts := make([]Action, len(idx))
	var buf []Action
	for i, ai := range idx {
		buf = x.m.Actions(s, buf[:0])
		acts[i] = buf[ai]
		if i+1 < len(idx) {
			next, err := x.m.Apply(s, acts[i])
			if err != nil {
				return nil, init, fmt.Errorf("checker: model bug: Apply not deterministic: %w", err)
			}
			s = next
		}
	}
	steps, err := describe(x.m, x.inits[init], acts)
	return steps, init, err
}
