package hyperquicksort

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
)

// Run runs m from input vector k, taking at every step the first enabled
// action (its choices fixed by m's Schedule, which Run needs), and returns
// the final state. Every property is checked on the way; the first
// violated one is an error.
func Run(m *Model, k int) (*World, error) {
	if m.p.Schedule == nil {
		return nil, fmt.Errorf("hyperquicksort: Run needs a non-recommended schedule")
	}
	inits := m.Init()
	if k < 0 || k >= len(inits) {
		return nil, fmt.Errorf("hyperquicksort: input %d out of 0 … %d", k, len(inits)-1)
	}
	w := inits[k]
	var buf []checker.Action
	for {
		if err := m.check(w, checker.Invariant); err != nil {
			return w, err
		}
		buf = m.Actions(w, buf[:0])
		if len(buf) == 0 {
			return w, m.check(w, checker.Quiescence)
		}
		next, err := m.Apply(w, buf[0])
		if err != nil {
			return w, err
		}
		w = next
	}
}

// check reports the first violated property of kind, skipping ExpectFail.
func (m *Model) check(w *World, kind checker.PropertyKind) error {
	for _, p := range m.props {
		if p.Kind != kind || p.ExpectFail {
			continue
		}
		if err := p.Check(w); err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	return nil
}
