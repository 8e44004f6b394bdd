package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
// half are distinct, see quintCorrectionTraces), QUINT_SEED.
func TestRingfdSpecTracesConform(t *testing.T) {
	quint := quintBin(t)
	k := envInt("QUINT_CONFORMANCE_TRACES", 40)
	for _, in := range ringfdInstances {
		t.Run(in.module, func(t *testing.T) {
			files, gen := quintRingfdTraces(t, quint, t.TempDir(), in.module, k)
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

// quintRingfdTraces runs quint on ringfd.qnt's module into dir and returns
// the distinct traces (see quintCorrectionTraces on the duplicates).
func quintRingfdTraces(t testing.TB, quint, dir, module string, n int) ([]string, time.Duration) {
	t0 := time.Now()
	cmd := exec.Command(quint, "run", filepath.Join(tlaDir(t), "ringfd.qnt"),
		"--main", module, "--backend", "typescript", "--invariant", "Inv",
		"--max-samples", strconv.Itoa(n), "--n-traces", strconv.Itoa(n),
		"--max-steps", "80", "--seed", quintSeed(), "--mbt", "--verbosity", "1",
		"--out-itf", filepath.Join(dir, module+"_{seq}.itf.json"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("quint run: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, module+"_*.itf.json"))
	if len(files) == 0 {
		t.Fatalf("quint wrote no trace\n%s", out)
	}
	return dedupITF(t, files), time.Since(t0)
}

// dedupITF drops files whose states repeat an earlier file's.
func dedupITF(t testing.TB, files []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if i := strings.Index(s, `"states"`); i >= 0 {
			s = s[i:]
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, f)
		}
	}
	return out
}

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
