package fuzz

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ftkernel/ftkernel/checker"
	abmodel "github.com/ftkernel/ftkernel/models/abcast"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// TestAbcastRapid: rapid draws an abcast core (variant, 2–5 members, 1–3
// messages each, a batch size, crashes within the variant's budget) and
// then every action of a run of models/abcast; integrity, no creation and
// total order hold on every step, and validity and agreement at the run's
// quiescent end (Appendix A). Rapid shrinks a failure to a minimal core
// and schedule.
func TestAbcastRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p := abmodel.Params{
			Variant:  ab.Variants[rapid.IntRange(0, 2).Draw(rt, "variant")],
			Core:     rapid.IntRange(2, 5).Draw(rt, "core"),
			Messages: rapid.IntRange(1, 3).Draw(rt, "messages"),
		}
		p.K = rapid.IntRange(1, p.Core*p.Messages).Draw(rt, "k")
		maxCrashes := p.Core - 1
		if p.Variant == ab.ConsensusBased {
			maxCrashes = (p.Core - 1) / 2
		}
		p.Crashes = rapid.IntRange(0, maxCrashes).Draw(rt, "crashes")
		m, err := abmodel.NewModel(p)
		if err != nil {
			rt.Fatal(err)
		}
		ps := m.Properties()
		w := m.Init()[0]
		for step := 0; step < 5000; step++ {
			if m.Quiescent(w) {
				for _, pr := range ps {
					if pr.Kind == checker.Quiescence {
						if err := pr.Check(w); err != nil {
							rt.Fatalf("step %d: %s violated at quiescence: %v", step, pr.Name, err)
						}
					}
				}
				return
			}
			as := m.Actions(w, nil)
			a := as[rapid.IntRange(0, len(as)-1).Draw(rt, "action")]
			next, err := m.Apply(w, a)
			if err != nil {
				rt.Fatalf("step %d: %s: %v", step, m.Describe(w, a), err)
			}
			for _, pr := range ps {
				if pr.Kind == checker.Invariant {
					if err := pr.Check(next); err != nil {
						rt.Fatalf("step %d (%s): %s violated: %v", step, m.Describe(w, a), pr.Name, err)
					}
				}
			}
			w = next
		}
		rt.Fatalf("no quiescence in 5000 steps")
	})
}
