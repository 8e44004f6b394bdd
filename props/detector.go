package props

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// DetectorComplete is the completeness of the environment's perfect
// failure detector, checked rather than assumed: "at quiescence every
// crash has been reported to every live process" (strong completeness,
// Chandra and Toueg, JACM 1996 §2.2; ERA's Lemma 1 rests on it, SC'15
// §2.1), with accuracy alongside ("only crashed processes are reported").
// A Quiescence property over env.World.Detected, for models whose
// env.Config.Detector is env.DetectorPerfect; with env.DetectorNone it
// fails at the first quiescent world after a crash. A detector that never
// reports some rank's death, while the run still counts as ended, fails
// it; the error names the live process and the crash it was never told
// of.
func DetectorComplete(name, doc string) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: name, Kind: checker.Quiescence, Doc: doc,
		Check: func(w *env.World) error {
			for p := core.Rank(0); int(p) < w.N(); p++ {
				if w.Crashed(p) {
					continue
				}
				for q := core.Rank(0); int(q) < w.N(); q++ {
					switch crashed, told := w.Crashed(q), w.Detected(p, q); {
					case crashed && !told:
						return fmt.Errorf("%v is alive and was never told that %v crashed, yet nothing is left to deliver, detect or call", p, q)
					case told && !crashed:
						return fmt.Errorf("%v was told that %v is dead, but %v is alive", p, q, q)
					}
				}
			}
			return nil
		}}
}
