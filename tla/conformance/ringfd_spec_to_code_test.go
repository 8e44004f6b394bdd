package conformance

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// ringfdInstances are the instances of tla/ringfd.qnt and their N.
var ringfdInstances = []struct {
	module string
	n      int
}{{"ringfd4", 4}, {"ringfd5", 5}}

// ringfdMustDiverge are the Go mutants that the spec traces must expose
// (some trace diverges). hosted-not-reported changes only what a daemon
// reports for its hosted processes, and there are none (Procs = 0);
// mend-without-skip-short-timeout differs from the spec only when a
// mending would skip a reported daemon, which random traces rarely reach:
// both are replayed and reported, not required.
var ringfdMustDiverge = []mutant.Name{
	ringfd.MutantNoMending, ringfd.MutantObserveSuccessor, ringfd.MutantForwardAlways,
	ringfd.MutantForwardNever, ringfd.MutantBMGPositiveOnly,
}

// TestRingfdSpecTracesConform generates traces of ringfd4 and ringfd5 with
// quint (invariant Inv, traces to quiescence) and replays each on the Go
// daemons, comparing pred, obs, Reported, the crashed set and the FAULT /
// HBREQ messages in flight after every step. The same traces replayed on
// the Go mutants must diverge for each of ringfdMustDiverge. Knobs:
// QUINT_CONFORMANCE_TRACES (quint samples per instance, default 40; about
// half are distinct, see quintRun.traces), QUINT_SEED.
func TestRingfdSpecTracesConform(t *testing.T) {
	quint := quintBin(t)
	k := envInt("QUINT_CONFORMANCE_TRACES", 40)
	for _, in := range ringfdInstances {
		t.Run(in.module, func(t *testing.T) {
			files, gen := quintRingfd.traces(t, quint, t.TempDir(), in.module, k, quintSeed())
			states := 0
			for _, f := range files {
				c, err := ReplayRingfdITF(f, in.n, mutant.None)
				if err != nil {
					t.Fatal(err)
				}
				states += c
			}
			t.Logf("%s: %d distinct traces (of %d samples) conform, %d states compared; quint %v",
				in.module, len(files), k, states, gen.Round(100*time.Millisecond))
			for _, mut := range ringfd.Mutants {
				diverged := 0
				for _, f := range files {
					if _, err := ReplayRingfdITF(f, in.n, mut); err != nil {
						diverged++
					}
				}
				t.Logf("Go mutant %s: %d of %d traces diverge", mut, diverged, len(files))
				if diverged == 0 && slicesContains(ringfdMustDiverge, mut) {
					t.Errorf("Go mutant %s follows every spec trace of %s", mut, in.module)
				}
			}
		})
	}
}

func slicesContains(xs []mutant.Name, x mutant.Name) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// quintRingfd runs ringfd.qnt (invariant Inv); see quintRun.traces.
var quintRingfd = quintRun{spec: "ringfd.qnt", invariant: "Inv", maxSteps: 80}

// TestRingfdSpecTracesConformCommitted replays the committed ringfd traces
// (tla/traces/ringfd*.itf.json) without quint; the same traces must
// diverge on the Go mutant no-mending.
func TestRingfdSpecTracesConformCommitted(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(tlaDir(t), "traces", "ringfd4_*.itf.json"))
	if len(files) == 0 {
		t.Fatal("no committed ringfd4 trace")
	}
	diverged := 0
	for _, f := range files {
		c, err := ReplayRingfdITF(f, 4, mutant.None)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d states conform", filepath.Base(f), c)
		if _, err := ReplayRingfdITF(f, 4, ringfd.MutantNoMending); err != nil {
			diverged++
			t.Logf("no-mending: %v", err)
		}
	}
	if diverged == 0 {
		t.Error("the Go mutant no-mending follows every committed ringfd trace")
	}
}
