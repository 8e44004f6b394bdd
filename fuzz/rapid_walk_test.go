package fuzz

import (
	"pgregory.net/rapid"

	"github.com/ftkernel/ftkernel/checker"
)

// walkRapid draws one run of m with rapid, an enabled action at a time,
// for at most maxSteps steps. It checks every Invariant on every state the
// run reaches and every Transition on every step, and, when the run reaches
// a quiescent state (its end), every Quiescence and Eventually property
// there; properties expected to fail are skipped. A state that is not
// quiescent and has no action is a deadlock. With mustQuiesce a run still
// going after maxSteps fails too. Rapid shrinks a failure to a minimal run.
func walkRapid[S any](rt *rapid.T, m checker.Model[S], maxSteps int, mustQuiesce bool) {
	var ps []checker.Property[S]
	for _, pr := range m.Properties() {
		if !pr.ExpectFail {
			ps = append(ps, pr)
		}
	}
	w := m.Init()[0]
	for step := 0; step < maxSteps; step++ {
		if m.Quiescent(w) {
			for _, pr := range ps {
				if pr.Kind == checker.Quiescence || pr.Kind == checker.Eventually {
					if err := pr.Check(w); err != nil {
						rt.Fatalf("step %d: %s violated at quiescence: %v", step, pr.Name, err)
					}
				}
			}
			return
		}
		as := m.Actions(w, nil)
		if len(as) == 0 {
			rt.Fatalf("step %d: deadlock", step)
		}
		a := as[rapid.IntRange(0, len(as)-1).Draw(rt, "action")]
		next, err := m.Apply(w, a)
		if err != nil {
			rt.Fatalf("step %d: %s: %v", step, m.Describe(w, a), err)
		}
		for _, pr := range ps {
			var err error
			switch pr.Kind {
			case checker.Invariant:
				err = pr.Check(next)
			case checker.Transition:
				err = pr.CheckStep(w, a, next)
			}
			if err != nil {
				rt.Fatalf("step %d (%s): %s violated: %v", step, m.Describe(w, a), pr.Name, err)
			}
		}
		w = next
	}
	if mustQuiesce {
		rt.Fatalf("no quiescence in %d steps", maxSteps)
	}
}
