package conformance

import (
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/paxos"
)

// quintPaxos runs paxos.qnt (invariant Inv); see quintRun.traces.
var quintPaxos = quintRun{spec: "paxos.qnt", invariant: "Inv", maxSteps: 60}

// TestPaxosSpecTracesConform generates ITF traces of paxos.qnt with quint
// (instances paxos3, paxos3x2 and fig21, whose proposers are not
// learners) and replays each on the Go nodes of
// statemachine/paxos (PxWorld), comparing every state. The same traces are
// replayed on every Go mutant (paxos.Mutants) and the first divergence of
// each is logged; accept-lower-ballot and ignore-promised-value, the
// mutants of paxos_mutants.qnt, must diverge on paxos3 and paxos3x2. Knobs: QUINT_PAXOS_TRACES
// (quint samples per instance, default 30), QUINT_SEED.
func TestPaxosSpecTracesConform(t *testing.T) {
	quint := quintBin(t)
	k := envInt("QUINT_PAXOS_TRACES", 30)
	seed := quintSeed()
	for _, module := range []string{"paxos3", "paxos3x2", "fig21"} {
		t.Run(module, func(t *testing.T) {
			in, err := pxInstance(module)
			if err != nil {
				t.Fatal(err)
			}
			files, gen := quintPaxos.traces(t, quint, t.TempDir(), module, k, seed)
			if len(files) < k/4 {
				t.Fatalf("only %d distinct traces of %d samples", len(files), k)
			}
			t0 := time.Now()
			tt := replayTally(t, files, func(file string) (Stats, error) { return ReplayPaxosITF(file, in, mutant.None) })
			t.Logf("%s: %d distinct traces (of %d samples) conform (spec steps %d..%d, total %d = %d Go steps; %d states compared; final crashed-set sizes %v); quint %.1fs, replay %.1fs",
				module, len(files), k, tt.minLen, tt.maxLen, tt.SpecSteps, tt.GoSteps, tt.Compared, tt.crashes,
				gen.Seconds(), time.Since(t0).Seconds())
			for _, mut := range paxos.Mutants {
				where := firstDivergence(files, func(file string) error {
					_, err := ReplayPaxosITF(file, in, mut)
					return err
				})
				t.Logf("mutant %-26s %s", mut, where)
				if module != "fig21" && where == "not caught" && (mut == paxos.MutantAcceptLowerBallot || mut == paxos.MutantIgnorePromisedValue) {
					t.Errorf("no trace tells the Go mutant %s apart", mut)
				}
			}
		})
	}
}
