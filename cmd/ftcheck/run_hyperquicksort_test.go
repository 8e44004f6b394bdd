package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunHyperquicksortKillValidate sorts over 8 processes (3 sorting
// rounds, each called 10 ms after the previous barrier) and kills a rank
// drawn at random at a random time in the first 15 ms: the kill is made
// before the first round (at 0s) or at the barrier of round 0 or 1, so it
// is always made. Every live process returns the same store at each of
// the 3 barriers, the last one sorted and a permutation of the input, and
// the trace validates against the network model and replays on check's
// model.
func TestRunHyperquicksortKillValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	k := fmt.Sprintf("%d@%dus", rng.IntN(8), rng.IntN(15000))
	t.Logf("draw seed %d: --kill %s", seed, k)
	dir := filepath.Join(t.TempDir(), "hyperquicksort")
	code, out, errs := ftcheckProcess(t, "run", "hyperquicksort", "--n", "8", "--kill", k, "--deadline", "10s", "--trace", dir, "--json")
	var sum struct {
		runSummary
		Kills []kill   `json:"kills"`
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("run --json: %v\n%s%s", err, out, errs)
	}
	if code != 0 || !sum.OK {
		t.Fatalf("run: exit %d, %+v\nstderr: %s", code, sum, errs)
	}
	if len(sum.Kills) != 1 || !sum.Kills[0].Done {
		t.Errorf("the kill was not made: %+v", sum.Kills)
	}
	if len(sum.Instances) != 3 {
		t.Errorf("want 3 barriers, got %+v", sum.Instances)
	}
	for _, in := range sum.Instances {
		if !in.Agreed || in.Returned != 7 {
			t.Errorf("barrier %d: agreed %v by %d of the 7 live processes", in.Instance, in.Agreed, in.Returned)
		}
	}
	if len(sum.Notes) != 1 || !strings.Contains(sum.Notes[0], "16 values, sorted true, a permutation of the input true") {
		t.Errorf("notes: %q", sum.Notes)
	}
	vcode, vout, verrs := ftcheck(t, "validate", dir)
	if vcode != 0 || !strings.Contains(vout, "every checked property holds along the run: sorted, permutation, same-view") ||
		!strings.Contains(vout, "its properties hold, and it ends with the same lists by virtual rank") {
		t.Fatalf("validate: exit %d\n%s%s", vcode, vout, verrs)
	}
}

// TestRunHyperquicksortMutantRejected: with skip-store, p3 killed before
// the first round is played by p2 from p2's own (empty) copy of v3's list,
// and v3's list in the store is never saved again: the lists by virtual
// rank at the last barrier are not the sorted input. The run says so
// (exit 1) and validate names the step at which the property fails (exit
// 1).
func TestRunHyperquicksortMutantRejected(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := filepath.Join(t.TempDir(), "hyperquicksort")
	code, out, errs := ftcheckProcess(t, "run", "hyperquicksort", "--n", "8", "--kill", "3@0s", "--mutant", "skip-store", "--deadline", "10s", "--trace", dir)
	if code != 1 || !strings.Contains(out, "problem: the lists by virtual rank") {
		t.Errorf("run: exit %d, want 1 with the lists wrong\n%s%s", code, out, errs)
	}
	vcode, vout, verrs := ftcheck(t, "validate", dir)
	if vcode != 1 || !strings.Contains(vout, "invariant sorted violated") && !strings.Contains(vout, "invariant permutation violated") {
		t.Errorf("validate: exit %d, want 1 with sorted or permutation violated\n%s%s", vcode, vout, verrs)
	}
}

// TestRunHyperquicksortBadUsage: killing every process, more kills than
// --non-recommended-max, the ULFM baseline and n no power of two are
// refused: exit 2, one line, before anything starts.
func TestRunHyperquicksortBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"run", "hyperquicksort", "--n", "2", "--kill", "0@1ms", "--kill", "1@1ms"}, // at most n − 1 non-recommended
		{"run", "hyperquicksort", "--kill", "1@1ms", "--non-recommended-max", "0"},
		{"run", "hyperquicksort", "--baseline", "ulfm"},
		{"run", "hyperquicksort", "--n", "6"},
		{"run", "hyperquicksort", "--kill", "9@1ms"},
	} {
		code, _, errs := ftcheck(t, args...)
		if code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}
