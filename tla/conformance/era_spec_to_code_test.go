package conformance

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/statemachine/era"
)

// tlaDir is the tla/ directory (the parent of this package).
func tlaDir(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test file")
	}
	return filepath.Dir(filepath.Dir(file))
}

// quintBin returns the pinned quint of tla/node_modules, or skips the test
// saying how to install it. With FTKERNEL_REQUIRE_QUINT=1 or CI set (CI
// runs ci/quint.sh, which installs it, before `go test ./...`) a missing
// quint is a failure instead.
func quintBin(t testing.TB) string {
	q := filepath.Join(tlaDir(t), "node_modules", ".bin", "quint")
	_, err := os.Stat(q)
	if err == nil {
		if _, err = exec.LookPath("node"); err == nil {
			return q
		}
	}
	msg := fmt.Sprintf("quint not available (%v): run `bash ci/quint.sh` (npm ci in tla/) to install the pinned Quint", err)
	if os.Getenv("FTKERNEL_REQUIRE_QUINT") == "1" || os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// envInt reads a knob from the environment.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// quintSeed is the seed of the quint runs: the knob QUINT_SEED, by default
// 20240611 (as in ci/quint.sh).
func quintSeed() string {
	if seed := os.Getenv("QUINT_SEED"); seed != "" {
		return seed
	}
	return "20240611"
}

// specInstance is a module of era_go.qnt and its crash budget F.
type specInstance struct {
	module string
	f      int
	traces int
}

// TestPaperReadingDiverges replays a committed trace of era4fixed (the
// spec's own termination fix, not the Go machine's) and expects the
// divergence it shows: 0, gathering, absorbs an UP from 3 (which
// re-parented to 0 after 1 died, before 0 learnt it) and the Go machine
// also remembers 3 in RequestedResult (recvUp), era4fixed does not.
func TestPaperReadingDiverges(t *testing.T) {
	_, err := ReplayITF(filepath.Join(tlaDir(t), "traces", "era4fixed_divergence.itf.json"), 2)
	var d *Divergence
	if !errors.As(err, &d) || d.Step != 10 || d.Action != "RecvUP" || !strings.Contains(d.Diff, "Requested") {
		t.Fatalf("want the RequestedResult divergence at state 10, got %v", err)
	}
	t.Log(d)
}

// TestSpecTracesConformCommitted replays the committed eraGo traces
// (tla/traces/eraGo*.itf.json); it needs no quint.
func TestSpecTracesConformCommitted(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(tlaDir(t), "traces", "eraGo*.itf.json"))
	if len(files) == 0 {
		t.Fatal("no committed tla/traces/eraGo*.itf.json")
	}
	fs := map[string]int{"eraGo3": 2, "eraGo4": 2, "eraGo5": 3, "eraGo3x2": 2}
	for _, file := range files {
		mod := filepath.Base(file)
		mod = mod[:len(mod)-len(filepath.Ext(mod))]
		for m, f := range fs {
			if len(mod) > len(m) && mod[:len(m)+1] == m+"_" {
				st, err := ReplayITF(file, f)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %d spec steps, %d Go steps, %d DC, %d compared", filepath.Base(file), st.SpecSteps, st.GoSteps, st.DCSteps, st.Compared)
			}
		}
	}
}

// TestSpecTracesConform generates ITF traces with quint (module eraGo of
// era_go.qnt, --step stepEager, with crashes and losses) into a temporary
// directory and replays each on the Go machines, comparing every state.
// Knobs: QUINT_CONFORMANCE_TRACES (traces per instance, default 150),
// QUINT_SEED.
func TestSpecTracesConform(t *testing.T) {
	quint := quintBin(t)
	k := envInt("QUINT_CONFORMANCE_TRACES", 150)
	seed := quintSeed()
	insts := []specInstance{
		{"eraGo3", 2, k}, {"eraGo4", 2, 2 * k}, {"eraGo3x2", 2, k / 2},
	}
	for _, in := range insts {
		t.Run(in.module, func(t *testing.T) {
			dir := t.TempDir()
			t0 := time.Now()
			cmd := exec.Command(quint, "run", filepath.Join(tlaDir(t), "era_go.qnt"),
				"--main", in.module, "--step", "stepEager", "--backend", "typescript",
				"--invariant", "Inv and TerminationAtQuiescence",
				"--max-samples", strconv.Itoa(in.traces), "--n-traces", strconv.Itoa(in.traces),
				"--max-steps", "60", "--seed", seed, "--mbt", "--verbosity", "1",
				"--out-itf", filepath.Join(dir, in.module+"_{seq}.itf.json"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("quint run: %v\n%s", err, out)
			}
			gen := time.Since(t0)
			files, _ := filepath.Glob(filepath.Join(dir, "*.itf.json"))
			if len(files) != in.traces {
				t.Fatalf("quint wrote %d traces, want %d\n%s", len(files), in.traces, out)
			}
			sort.Strings(files)
			var tot Stats
			lens := map[int]int{}
			minLen, maxLen := 1<<30, 0
			for _, file := range files {
				st, err := ReplayITF(file, in.f)
				if err != nil {
					t.Fatal(err)
				}
				tot.SpecSteps += st.SpecSteps
				tot.GoSteps += st.GoSteps
				tot.DCSteps += st.DCSteps
				tot.Stutters += st.Stutters
				tot.Compared += st.Compared
				lens[st.SpecSteps]++
				minLen, maxLen = min(minLen, st.SpecSteps), max(maxLen, st.SpecSteps)
			}
			t.Logf("%s: %d traces conform (spec steps %d..%d, total %d: %d Go steps, %d DC, %d stutters; %d states compared); quint %.1fs, replay %.1fs",
				in.module, len(files), minLen, maxLen, tot.SpecSteps, tot.GoSteps, tot.DCSteps, tot.Stutters, tot.Compared,
				gen.Seconds(), (time.Since(t0) - gen).Seconds())
			if in.module != "eraGo4" {
				return
			}
			// The comparison has teeth: the same traces on the Go
			// mutants (one broken rule each) must diverge.
			caught := 0
			for _, mut := range era.Mutants {
				where := "not caught"
				for _, file := range files {
					if _, err := ReplayITFMutant(file, in.f, mut); err != nil {
						var d *Divergence
						if errors.As(err, &d) {
							where = fmt.Sprintf("caught: %s state %d after %s", filepath.Base(d.File), d.Step, d.Action)
						} else {
							where = "caught: " + err.Error()
						}
						caught++
						break
					}
				}
				t.Logf("mutant %-26s %s", mut, where)
			}
			if caught < minMutantsCaught {
				t.Errorf("%d of %d Go mutants diverge from the spec's traces, want at least %d", caught, len(era.Mutants), minMutantsCaught)
			}
		})
	}
}

// minMutantsCaught is how many of era.Mutants the eraGo4 traces must
// tell apart from the spec (at the default seed and trace count).
const minMutantsCaught = 9
