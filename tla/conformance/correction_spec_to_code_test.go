package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/correction"
)

// corrInstance looks up an instance module of correction.qnt.
func corrInstance(t testing.TB, module string) CorrInstance {
	for _, in := range CorrInstances {
		if in.Module == module {
			return in
		}
	}
	t.Fatalf("no instance %s", module)
	return CorrInstance{}
}

// TestCorrectionSpecTracesConformCommitted replays the committed
// correction traces (tla/traces/correction*.itf.json); it needs no quint.
func TestCorrectionSpecTracesConformCommitted(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(tlaDir(t), "traces", "correction*.itf.json"))
	if len(files) == 0 {
		t.Fatal("no committed tla/traces/correction*.itf.json")
	}
	caught := 0
	for _, file := range files {
		module, _, _ := strings.Cut(filepath.Base(file), "_")
		in := corrInstance(t, module)
		st, err := ReplayCorrectionITF(file, in, mutant.None)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d spec steps = %d Go steps, %d states compared", filepath.Base(file), st.SpecSteps, st.GoSteps, st.Compared)
		if _, err := ReplayCorrectionITF(file, in, correction.MutantCheckedStopEarly); err != nil {
			t.Logf("  the Go mutant %s diverges: %v", correction.MutantCheckedStopEarly, err)
			caught++
		}
	}
	if caught == 0 {
		t.Errorf("the Go mutant %s follows every committed trace", correction.MutantCheckedStopEarly)
	}
}

// quintCorrection runs correction.qnt (invariant Correct); quint writes
// n files holding about n/2 distinct traces: see quintRun.traces.
var quintCorrection = quintRun{spec: "correction.qnt", invariant: "Correct", maxSteps: 200, exactN: true}

// TestCorrectionSpecTracesConform generates ITF traces of checked
// correction with quint (every instance of correction.qnt, invariant
// Correct) into a temporary directory and replays each on the Go machines
// in the checker's environment, comparing every state. The same traces
// must not all replay on the Go mutant checked-stop-on-first-message (the
// other Go mutants are replayed too, and reported).
// By default the instances correction4 (binomial tree, two failures) and
// correction6inorder (in-order tree: big gaps); with
// CORRECTION_CONFORMANCE_ALL=1 every instance. Knobs:
// QUINT_CONFORMANCE_TRACES (quint samples per instance, default 60, of
// which the longest half are distinct traces: see quintRun.traces),
// QUINT_SEED.
func TestCorrectionSpecTracesConform(t *testing.T) {
	quint := quintBin(t)
	k := envInt("QUINT_CONFORMANCE_TRACES", 60)
	seed := quintSeed()
	for _, in := range CorrInstances {
		if os.Getenv("CORRECTION_CONFORMANCE_ALL") != "1" && in.Module != "correction4" && in.Module != "correction6inorder" {
			continue
		}
		t.Run(in.Module, func(t *testing.T) {
			files, gen := quintCorrection.traces(t, quint, t.TempDir(), in.Module, k, seed)
			t0 := time.Now()
			tt := replayTally(t, files, func(file string) (Stats, error) { return ReplayCorrectionITF(file, in, mutant.None) })
			// about k/2 (see quintRun.traces), fewer when two
			// samples happen to take the same path (small instances)
			if len(files) < k/4 {
				t.Fatalf("only %d distinct traces of %d samples", len(files), k)
			}
			t.Logf("%s: %d distinct traces (of %d samples) conform (spec steps %d..%d, total %d = %d Go steps; %d states compared; final crashed-set sizes %v); quint %.1fs, replay %.1fs",
				in.Module, len(files), k, tt.minLen, tt.maxLen, tt.SpecSteps, tt.GoSteps, tt.Compared, tt.crashes,
				gen.Seconds(), time.Since(t0).Seconds())
			// The comparison has teeth: the same traces on the Go mutants
			// (correction.Mutants; those for other corrections or trees
			// do not apply) diverge; checked-stop-on-first-message must.
			for _, mut := range correction.Mutants {
				where := firstDivergence(files, func(file string) error {
					_, err := ReplayCorrectionITF(file, in, mut)
					return err
				})
				t.Logf("mutant %-30s %s", mut, where)
				if mut == correction.MutantCheckedStopEarly && where == "not caught" {
					t.Errorf("no trace tells the Go mutant %s apart", mut)
				}
			}
		})
	}
}
