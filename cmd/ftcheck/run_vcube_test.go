package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunVCubeKillValidate: VCube over 8 processes in ticks of 50 ms (Δ = 2,
// rounds of 5 ticks), one rank drawn at random killed at a random time in
// the first 500 ms. No detector tells anyone: every live process diagnoses
// the killed rank by its own tests or the timestamps it merges, holds that
// diagnosis for a full cycle, and diagnoses no live rank; validate replays
// the run in the bounded-delay model with every property holding. As in
// TestRunDetectorsKillValidate, a load that stalls a process for more than
// Δ ticks is named by validate as the timing assumption broken, and the
// test accepts that verdict only, logged.
func TestRunVCubeKillValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	victim := rng.IntN(8)
	k := fmt.Sprintf("%d@%dms", victim, rng.IntN(500))
	t.Logf("draw seed %d: --kill %s", seed, k)
	dir := filepath.Join(t.TempDir(), "vcube")
	code, out, errs := ftcheckProcess(t, "run", "vcube", "--n", "8", "--kill", k, "--deadline", "10s", "--trace", dir, "--json")
	var sum runSummary
	decodeOne(t, out, &sum)
	vcode, vout, verrs := ftcheck(t, "validate", dir)
	if vcode == 1 && strings.Contains(vout, "the model cannot advance from tick") {
		t.Logf("the machine's load broke the timing assumption (run exit %d, %v): %s", code, sum.Problems, vout)
		return
	}
	if vcode != 0 || !strings.Contains(vout, "every checked property holds along the run: accuracy, completeness, tester-rule") {
		t.Fatalf("validate: exit %d\n%s%s", vcode, vout, verrs)
	}
	if code != 0 || !sum.OK || len(sum.Instances) != 1 || sum.Instances[0].Instance != uint64(victim) || sum.Instances[0].Returned != 7 {
		t.Fatalf("run: exit %d, %+v\nstderr: %s", code, sum, errs)
	}
}

// TestRunVCubeMutantsRejected: two of VCube's mutants built into the
// binary, each run with a kill. tester-own-cluster tests by c(i, s)'s rule:
// validate finds tester-rule violated at the first round's start (p0 tests
// nobody, the rule gives p1), and the killed rank is never diagnosed by
// everyone, so the run misses its deadline (exit 1). silence-fault-free
// never tests a silent node faulty: the run misses its deadline and
// validate finds completeness violated once a live node passes the bound
// round. A run in ticks is replayed only while no message overran Δ, so
// each is tried up to 3 times, each miss logged.
func TestRunVCubeMutantsRejected(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for _, c := range []struct {
		mutant, deadline, property string
	}{
		{"tester-own-cluster", "1500ms", "tester-rule violated"},
		{"silence-fault-free", "4s", "completeness violated"},
	} {
		for try := 1; ; try++ {
			dir := filepath.Join(t.TempDir(), c.mutant)
			args := []string{"run", "vcube", "--n", "8", "--mutant", c.mutant, "--kill", "3@300ms", "--deadline", c.deadline, "--trace", dir}
			code, out, errs := ftcheckProcess(t, args...)
			vcode, vout, verrs := ftcheck(t, "validate", dir)
			if code == 1 && vcode == 1 && strings.Contains(vout, c.property) {
				break
			}
			if try < 3 {
				t.Logf("%s, try %d: run exit %d, validate exit %d: %s", c.mutant, try, code, vcode, vout)
				continue
			}
			t.Errorf("%v: exit %d (want 1); validate: exit %d, want 1 with %q\n%s%s%s%s", args, code, vcode, c.property, out, errs, vout, verrs)
			break
		}
	}
}

// TestRunVCubeBadUsage: what the scenario cannot run exits 2 with one line,
// before starting anything.
func TestRunVCubeBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"run", "vcube"}, // a crash and its diagnosis: no kill, no scenario
		{"run", "vcube", "--kill", "8@1ms"},
		{"run", "vcube", "--kill", "1@1ms", "--crashes", "0"},
		{"run", "vcube", "--kill", "1@1ms", "--timing", "rounds"}, // the round model has no processes
		{"run", "vcube", "--kill", "1@1ms", "--faulty-max", "2"},
		{"run", "vcube", "--kill", "1@1ms", "--n", "6"},
		{"run", "vcube", "--kill", "1@1ms", "--delta", "0"},
		{"run", "vcube", "--kill", "1@1ms", "--detector", "ringfd"}, // its tests are its detector
	} {
		code, _, errs := ftcheck(t, args...)
		if code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}
