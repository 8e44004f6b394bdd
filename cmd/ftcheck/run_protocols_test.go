package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runAndValidate runs `ftcheck run args… --trace DIR --json` in its own
// process, wants exit 0 with every live process finished and every output
// agreed among the processes compared, then wants `ftcheck validate DIR`
// to exit 0. It returns the run's summary.
func runAndValidate(t *testing.T, args ...string) runSummary {
	t.Helper()
	dir := filepath.Join(t.TempDir(), args[0])
	code, out, errs := ftcheckProcess(t, append(append([]string{"run"}, args...), "--trace", dir, "--json")...)
	var sum runSummary
	decodeOne(t, out, &sum)
	if code != 0 || !sum.OK {
		t.Fatalf("run %v: exit %d, %+v\nstderr: %s", args, code, sum, errs)
	}
	for _, p := range sum.Processes {
		if !p.Killed && !p.Finished {
			t.Errorf("run %v: p%d is alive and did not finish", args, p.Rank)
		}
	}
	for _, in := range sum.Instances {
		if !in.Agreed {
			t.Errorf("run %v: instance %d not agreed", args, in.Instance)
		}
	}
	code, out, errs = ftcheck(t, "validate", dir)
	if code != 0 || !strings.Contains(out, "every checked property holds") {
		t.Fatalf("validate (run %v): exit %d\n%s%s", args, code, out, errs)
	}
	return sum
}

// TestRunCorrectionKillValidate broadcasts over 8 processes and kills a
// non-root rank drawn at random at a random time in the first 3 ms (the
// broadcast takes about that long: the kill falls before, during or after
// the victim's delivery). Every live process delivers the root's 42 once,
// and the trace is a run of the model with every property holding.
func TestRunCorrectionKillValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	k := fmt.Sprintf("%d@%dus", 1+rng.IntN(7), rng.IntN(3000))
	t.Logf("draw seed %d: --kill %s", seed, k)
	sum := runAndValidate(t, "correction", "--P", "8", "--kill", k)
	live := 0
	for _, p := range sum.Processes {
		if !p.Killed {
			live++
		}
	}
	if len(sum.Instances) != 1 || sum.Instances[0].Returned != live {
		t.Errorf("want one delivery by each of the %d live processes: %+v", live, sum.Instances)
	}
}

// TestRunReplicaKillValidate runs gather-sum over 3 logical processes (5
// replicas: P0 = {p0}, P1 = {p1, p2}, P2 = {p3, p4}) and kills one replica
// of P1 or P2, drawn at random, at a random time in the first 5 ms. The
// live replicas of each logical process output the same values, and the
// trace, with the perfect detector's notifications, validates.
func TestRunReplicaKillValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	k := fmt.Sprintf("%d@%dus", 1+rng.IntN(4), rng.IntN(5000))
	t.Logf("draw seed %d: --kill %s", seed, k)
	sum := runAndValidate(t, "replica", "--program", "gather-sum", "--procs", "3", "--kill", k)
	if len(sum.Instances) == 0 {
		t.Errorf("no output: %+v", sum)
	}
}

// TestRunDetectorsKillValidate: the two heartbeat detectors over 4 hosts
// in ticks of 50 ms, one host killed, drawn at random, at a random time in
// the first second. ringfd: heartbeat every 2 ticks, timeout 12, delay
// bound Δ = 3; gossipfd: the model's defaults (T_gossip 4 ticks, Δ = 1)
// for 30 rounds. Every live host reports the killed one, no live one is
// reported, and validate replays the run, tick by tick, in the
// bounded-delay model. A process the operating system stalls for more
// than Δ ticks breaks the model's timing assumption: validate then names
// the tick the model cannot pass, and the run may report a live host
// failed (a false suspicion, a real one). The test accepts that verdict,
// and only that one, in place of success, and logs it.
func TestRunDetectorsKillValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for _, model := range []string{"ringfd", "gossipfd"} {
		seed := uint64(time.Now().UnixNano())
		rng := rand.New(rand.NewPCG(seed, 0))
		k := fmt.Sprintf("%d@%dms", rng.IntN(4), rng.IntN(1000))
		t.Logf("%s: draw seed %d: --kill %s", model, seed, k)
		dir := filepath.Join(t.TempDir(), model)
		code, out, errs := ftcheckProcess(t, "run", model, "--n", "4", "--kill", k, "--deadline", "20s", "--trace", dir, "--json")
		var sum runSummary
		decodeOne(t, out, &sum)
		vcode, vout, verrs := ftcheck(t, "validate", dir)
		if vcode == 1 && strings.Contains(vout, "the model cannot advance from tick") {
			t.Logf("%s: the machine's load broke the timing assumption (run exit %d, %v): %s", model, code, sum.Problems, vout)
			continue
		}
		if vcode != 0 || !strings.Contains(vout, "every checked property holds") {
			t.Fatalf("%s: validate: exit %d\n%s%s", model, vcode, vout, verrs)
		}
		if code != 0 || !sum.OK || len(sum.Instances) != 1 || sum.Instances[0].Returned != 3 {
			t.Fatalf("%s: run: exit %d, %+v\nstderr: %s", model, code, sum, errs)
		}
	}
}

// TestRunMutantsRejectedByValidate: for each protocol, a mutant built
// into the binary whose run validate rejects (exit 1) with the named
// property violated. Correction's redeliver-on-correction delivers again
// on a correction message: every process gets 42, so the run agrees (exit
// 0), but no-duplicates fails; every run of 8 processes has some colored
// process receive a correction message. Replica's mid-without-time, on
// mid-example, leaves P2^0 waiting forever: the run misses its deadline
// (exit 1) and validity fails at the quiescent end of the trace. Ringfd's
// observe-successor makes daemon d wait for heartbeats from d+1, which
// sends them to d+2: d reports a live daemon at its first timeout, tick
// 12, before the kill at 1 s (tick 20) whose detection ends the run (run
// exit 1), and validate finds strong accuracy violated (tried up to 3 times, see
// below). Gossipfd's never-suspect never declares
// the killed host: the run misses its deadline and completeness fails once
// a live host passes the bound round.
func TestRunMutantsRejectedByValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for _, c := range []struct {
		args     []string
		runExit  int
		property string
		timed    bool
	}{
		{[]string{"correction", "--P", "8", "--mutant", "redeliver-on-correction"}, 0, "no-duplicates violated", false},
		{[]string{"replica", "--program", "mid-example", "--procs", "3", "--mutant", "mid-without-time", "--deadline", "1s"}, 1, "validity violated", false},
		{[]string{"ringfd", "--n", "4", "--mutant", "observe-successor", "--kill", "2@1s", "--deadline", "3s"}, 1, "strong-accuracy violated", true},
		{[]string{"gossipfd", "--n", "4", "--mutant", "never-suspect", "--kill", "2@200ms", "--deadline", "2500ms"}, 1, "completeness violated", true},
	} {
		// A run in ticks is replayed only up to the last tick every live
		// process finished, and only while no message overran Δ: a process
		// the machine's load stalls can hide the violation, so such a run
		// is tried up to 3 times, each miss logged.
		for try := 1; ; try++ {
			dir := filepath.Join(t.TempDir(), c.args[0])
			code, out, errs := ftcheckProcess(t, append(append([]string{"run"}, c.args...), "--trace", dir)...)
			vcode, vout, verrs := ftcheck(t, "validate", dir)
			if code == c.runExit && vcode == 1 && strings.Contains(vout, c.property) {
				break
			}
			if c.timed && try < 3 {
				t.Logf("run %v, try %d: run exit %d, validate exit %d: %s", c.args, try, code, vcode, vout)
				continue
			}
			t.Errorf("run %v: exit %d (want %d); validate: exit %d, want 1 with %q\n%s%s%s%s", c.args, code, c.runExit, vcode, c.property, out, errs, vout, verrs)
			break
		}
	}
}

// TestRunProtocolsBadUsage: a kill the model does not allow exits 2
// before starting anything.
func TestRunProtocolsBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"run", "correction", "--kill", "0@1ms"},                  // the root never fails
		{"run", "correction", "--kill", "1@1ms", "--faults", "0"}, // no crash budget
		{"run", "correction", "--P", "4", "--kill", "4@1ms"},
		{"run", "replica", "--kill", "1@1ms", "--crashes", "0"},
		{"run", "replica", "--program", "nope"},
		{"run", "ringfd", "--kill", "4@1ms"},
		{"run", "ringfd"}, // a crash and its detection: no kill, no scenario
		{"run", "gossipfd", "--timing", "rounds", "--kill", "1@1ms"},
		{"run", "correction", "--detector", "ringfd"}, // no detector to replace
		{"run", "era", "--detector", "heartbeat"},
		{"run", "ringfd", "--kill", "1@1ms", "--detector", "gossipfd"},
		{"run", "ringfd", "--kill", "1@1ms", "--crashes", "0"},
	} {
		code, _, errs := ftcheck(t, args...)
		if code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}

// TestRunHeartbeatDetectorValidate: ERA's benchmark loop over 4 processes
// with ringfd, and replica's gather-sum with gossipfd, as the runtime's
// failure detector (--detector): one rank, drawn at random, killed at a
// random time. The protocol learns of the death from the detector running
// beside it in each process; validate checks the protocol's trace with
// those notifications as the model's detect steps, and the detector's own
// trace against its model. As in TestRunDetectorsKillValidate, a load
// that stalls a process for more than Δ ticks is named by validate as the
// timing assumption broken, and the test accepts that verdict only.
func TestRunHeartbeatDetectorValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	for _, c := range [][]string{
		{"era", "--n", "4", "--agreements", "10", "--interval", "50ms", "--detector", "ringfd", "--kill", fmt.Sprintf("%d@%dms", rng.IntN(4), rng.IntN(300))},
		{"replica", "--program", "gather-sum", "--procs", "3", "--detector", "gossipfd", "--kill", fmt.Sprintf("%d@%dus", 1+rng.IntN(4), rng.IntN(3000))},
	} {
		t.Logf("draw seed %d: %v", seed, c)
		dir := filepath.Join(t.TempDir(), c[0])
		code, out, errs := ftcheckProcess(t, append(append([]string{"run"}, c...), "--deadline", "20s", "--trace", dir, "--json")...)
		var sum runSummary
		decodeOne(t, out, &sum)
		vcode, vout, verrs := ftcheck(t, "validate", dir)
		if vcode == 1 && strings.Contains(vout, "the model cannot advance from tick") {
			t.Logf("%v: the machine's load broke the timing assumption (run exit %d, %v): %s", c, code, sum.Problems, vout)
			continue
		}
		if vcode != 0 || strings.Count(vout, "every checked property holds") != 2 || !strings.Contains(vout, "notifications") {
			t.Fatalf("%v: validate: exit %d\n%s%s", c, vcode, vout, verrs)
		}
		if code != 0 || !sum.OK {
			t.Fatalf("%v: run: exit %d, %+v\nstderr: %s", c, code, sum, errs)
		}
	}
}
