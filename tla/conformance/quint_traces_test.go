package conformance

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"
)

// quintRun describes `quint run --mbt` on the instance modules of one
// spec: what differs between the specs' spec-to-code tests.
type quintRun struct {
	spec      string // file under tla/, e.g. "replica.qnt"
	invariant string // invariant checked while sampling; "" checks none
	maxSteps  int    // --max-steps, in spec steps
	exactN    bool   // quint must write exactly n files (else at least one)
}

// traces runs quint on module with n samples (--max-samples n --n-traces n)
// and returns the distinct ITF traces it wrote into dir (sorted) and how
// long quint took.
//
// Quint 0.33.0's typescript simulator records a trace that ends because
// no step is enabled (at quiescence, or at a spec's horizon) twice
// (Evaluator.simulate calls recorder.onRunReturn in the step loop and
// again after it), and --n-traces keeps the n best, i.e. longest, of
// those records: --max-samples n --n-traces n writes n files holding
// about n/2 distinct traces, the longest half of the n samples. The
// duplicates (same "states") are dropped here.
func (q quintRun) traces(t testing.TB, quint, dir, module string, n int, seed string) ([]string, time.Duration) {
	t0 := time.Now()
	args := []string{"run", filepath.Join(tlaDir(t), q.spec), "--main", module, "--backend", "typescript"}
	if q.invariant != "" {
		args = append(args, "--invariant", q.invariant)
	}
	args = append(args,
		"--max-samples", strconv.Itoa(n), "--n-traces", strconv.Itoa(n),
		"--max-steps", strconv.Itoa(q.maxSteps), "--seed", seed, "--mbt", "--verbosity", "1",
		"--out-itf", filepath.Join(dir, module+"_{seq}.itf.json"))
	out, err := exec.Command(quint, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("quint run: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, module+"_*.itf.json"))
	if q.exactN && len(files) != n {
		t.Fatalf("quint wrote %d traces, want %d\n%s", len(files), n, out)
	}
	if len(files) == 0 {
		t.Fatalf("quint wrote no traces\n%s", out)
	}
	sort.Strings(files)
	seen := map[[sha256.Size]byte]bool{}
	var distinct []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			States json.RawMessage `json:"states"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if h := sha256.Sum256(doc.States); !seen[h] {
			seen[h] = true
			distinct = append(distinct, f)
		}
	}
	return distinct, time.Since(t0)
}

// firstDivergence replays files in order with replay (one Go mutant) and
// describes the first divergence: "diverges: FILE state S after
// ACTION(PICKS)" for a state mismatch, "diverges: ERR" for another error,
// or "not caught" when every file replays.
func firstDivergence(files []string, replay func(file string) error) string {
	for _, file := range files {
		if err := replay(file); err != nil {
			var d *Divergence
			if errors.As(err, &d) {
				return fmt.Sprintf("diverges: %s state %d after %s(%s)", filepath.Base(d.File), d.Step, d.Action, d.Picks)
			}
			return "diverges: " + err.Error()
		}
	}
	return "not caught"
}

// traceTally totals the replays of a set of spec traces.
type traceTally struct {
	Stats                      // summed over the traces
	minLen, maxLen int         // fewest and most spec steps of a trace
	crashes        map[int]int // traces per final size of the spec's crashed set
}

// replayTally replays every file with replay (the correct Go machines),
// failing the test on the first error, and tallies the replays; the spec
// must have a set (or list) variable "crashed".
func replayTally(t testing.TB, files []string, replay func(file string) (Stats, error)) traceTally {
	t.Helper()
	tt := traceTally{minLen: 1 << 30, crashes: map[int]int{}}
	for _, file := range files {
		st, err := replay(file)
		if err != nil {
			t.Fatal(err)
		}
		tt.SpecSteps += st.SpecSteps
		tt.GoSteps += st.GoSteps
		tt.Compared += st.Compared
		tt.minLen, tt.maxLen = min(tt.minLen, st.SpecSteps), max(tt.maxLen, st.SpecSteps)
		tr, err := readITF(file)
		if err != nil {
			t.Fatal(err)
		}
		tt.crashes[len(tr.States[len(tr.States)-1]["crashed"].([]any))]++
	}
	return tt
}
