package fuzz

import (
	"testing"

	"pgregory.net/rapid"

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
		walkRapid(rt, m, 5000, true)
	})
}
