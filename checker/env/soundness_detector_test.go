package env_test

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/props"
)

// TestDetectorReportsOnlyByDetect: along random walks of every toy model,
// World.Detected(p, q) is exactly the set of Detect(p, q) actions the walk
// took (each of which stepped p), and with the perfect detector every
// quiescent world satisfies props.DetectorComplete. The oracle is the
// walk's own list of actions, not the environment's bookkeeping, so a
// detector that marks a death as reported without stepping the process
// (planted: Crash of p1 marking p1 detected everywhere) fails here, and a
// detector that never reports a death while counting the run as ended
// (props.TestDetectorComplete's deafTo) fails DetectorComplete.
func TestDetectorReportsOnlyByDetect(t *testing.T) {
	names, ms := toyModels(t)
	complete := props.DetectorComplete("detector-complete", "")
	for _, name := range names {
		m := ms[name]
		var told map[[2]core.Rank]bool
		detects, quiet := 0, 0
		err := envtest.Walk(m, 7, 300, 200, func(w *env.World) error {
			if w.Depth() == 0 {
				told = map[[2]core.Rank]bool{}
			} else if a := w.LastAction(); a.Kind == env.Detect {
				detects++
				told[[2]core.Rank{core.Rank(a.P), core.Rank(a.Q)}] = true
				if w.LastActor() != core.Rank(a.P) {
					return fmt.Errorf("Detect(%d, %d) stepped %v", a.P, a.Q, w.LastActor())
				}
			}
			for p := range core.Rank(w.N()) {
				for q := range core.Rank(w.N()) {
					if w.Detected(p, q) != told[[2]core.Rank{p, q}] {
						return fmt.Errorf("Detected(%v, %v) = %v, but the walk took Detect(%v, %v): %v", p, q, w.Detected(p, q), p, q, told[[2]core.Rank{p, q}])
					}
				}
			}
			if m.Quiescent(w) && m.Config().Detector == env.DetectorPerfect {
				quiet++
				return complete.Check(w)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		perfect := m.Config().Detector == env.DetectorPerfect && m.Config().Crashes > 0
		if perfect && (detects == 0 || quiet == 0) {
			t.Errorf("%s: %d detections, %d quiescent worlds: the walks never exercised the detector", name, detects, quiet)
		}
	}
}
