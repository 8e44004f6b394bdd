package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/netnode"
)

// ftcheckProcess runs this test binary as ftcheck (TestMain) in its own
// process, as ftcheck run must be: it starts its ranks as processes of the
// same binary. The process is killed if it outlives the test's bound.
func ftcheckProcess(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "FTCHECK_AS_MAIN=1")
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v: still running after 2 minutes (killed): %s", args, errb.String())
	}
	if cmd.ProcessState == nil {
		t.Fatalf("%v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

type runSummary struct {
	OK        bool     `json:"ok"`
	Problems  []string `json:"problems"`
	Instances []struct {
		Instance uint64 `json:"instance"`
		Agreed   bool   `json:"agreed"`
		Returned int    `json:"returned"`
	} `json:"instances"`
	Processes []struct {
		Rank     int  `json:"rank"`
		Killed   bool `json:"killed"`
		Finished bool `json:"finished"`
	} `json:"processes"`
}

// TestRunKillValidate runs ERA's benchmark loop in 6 processes, kills two
// ranks drawn at random at random times, and validates the trace: every
// live process finished and agreed (exit 0), and the merged logs are a run
// of the model in which every property holds (exit 0). The seed of the
// draw is logged.
func TestRunKillValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	perm := rng.Perm(6)
	k1 := fmt.Sprintf("%d@%dms", perm[0], rng.IntN(60))
	k2 := fmt.Sprintf("%d@%dms", perm[1], rng.IntN(60))
	t.Logf("draw seed %d: --kill %s --kill %s", seed, k1, k2)
	dir := filepath.Join(t.TempDir(), "era")
	code, out, errs := ftcheckProcess(t, "run", "era", "--n", "6", "--agreements", "10", "--interval", "20ms",
		"--kill", k1, "--kill", k2, "--seed", fmt.Sprint(seed%1000), "--trace", dir, "--json")
	var sum runSummary
	decodeOne(t, out, &sum)
	if code != 0 || !sum.OK || len(sum.Instances) != 10 || len(sum.Processes) != 6 {
		t.Fatalf("run: exit %d, %+v\nstderr: %s", code, sum, errs)
	}
	live := 0
	for _, p := range sum.Processes {
		if !p.Killed {
			live++
			if !p.Finished {
				t.Errorf("p%d is alive and did not finish", p.Rank)
			}
		}
	}
	for _, in := range sum.Instances {
		if !in.Agreed || in.Returned != live {
			t.Errorf("instance %d: agreed %v, returned by %d live processes, want %d", in.Instance, in.Agreed, in.Returned, live)
		}
	}
	code, out, errs = ftcheck(t, "validate", dir)
	if code != 0 || !strings.Contains(out, "every checked property holds") {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
	}

	// A killed process may leave its last line cut short: it is dropped.
	cut := copyDir(t, dir)
	appendTo(t, filepath.Join(cut, rankLog(perm[0])), `{"seq":`)
	code, out, errs = ftcheck(t, "validate", cut)
	if code != 0 || !strings.Contains(out, "cut-short last line dropped from "+rankLog(perm[0])) {
		t.Errorf("validate with a cut-short last line: exit %d\n%s%s", code, out, errs)
	}
	// A corrupt line before the last is a damaged trace: exit 2.
	bad := copyDir(t, dir)
	survivor := perm[2]
	editLine(t, filepath.Join(bad, rankLog(survivor)), 3, func(string) string { return `{"seq":2,"lc":` })
	code, _, errs = ftcheck(t, "validate", bad)
	if code != 2 || !strings.Contains(errs, rankLog(survivor)+":3: corrupt line") {
		t.Errorf("validate with a corrupt line: exit %d, %s", code, errs)
	}
	// A step whose logged effects are not the model's: exit 1, naming it.
	forged := copyDir(t, dir)
	editLine(t, filepath.Join(forged, rankLog(survivor)), 2, func(l string) string {
		var r netnode.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		r.Effects = append(r.Effects, netnode.EffectRecord{Kind: "decide", To: -1, Instance: 7, Value: []byte{1, 0, 0}, Text: "forged"})
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	})
	code, out, errs = ftcheck(t, "validate", forged)
	if code != 1 || !strings.Contains(out, rankLog(survivor)+":2 (step") || !strings.Contains(out, "diverged from the model") {
		t.Errorf("validate with a forged effect: exit %d\n%s%s", code, out, errs)
	}
}

// TestRunMutantRejectedByValidate: a root that decides before its
// children contributed (--mutant early-root-decision, built into the
// binary) still makes the processes return the same values, so run exits
// 0; validate replays the trace against the same mutant model and finds
// validity violated at a decision of p0's (exit 1). The root decides
// early only when its call comes before its children's contributions,
// which the scheduling of the processes decides: an agreement may escape,
// 20 in a row do not (a run of 3 agreements escaped once in 50).
func TestRunMutantRejectedByValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := filepath.Join(t.TempDir(), "mutant")
	code, out, errs := ftcheckProcess(t, "run", "era", "--n", "4", "--agreements", "20", "--interval", "1ms",
		"--mutant", "early-root-decision", "--trace", dir)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = ftcheck(t, "validate", dir)
	if code != 1 || !strings.Contains(out, "validate: p0.ndjson:") || !strings.Contains(out, "validity violated") {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
	}
}

// TestRunDeadlineAndSignal: a live process not finished by --deadline
// makes run exit 1 (the children are ended); SIGINT exits 3.
func TestRunDeadlineAndSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	code, out, errs := ftcheckProcess(t, "run", "era", "--n", "3", "--agreements", "3", "--interval", "1h", "--deadline", "1ms")
	if code != 1 || !strings.Contains(out, "the deadline passed") || !strings.Contains(out, "did not finish") {
		t.Errorf("deadline: exit %d\n%s%s", code, out, errs)
	}

	dir := filepath.Join(t.TempDir(), "sig")
	cmd := exec.Command(os.Args[0], "run", "era", "--n", "3", "--agreements", "3", "--interval", "1h", "--trace", dir)
	cmd.Env = append(os.Environ(), "FTCHECK_AS_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	guard := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer guard.Stop()
	// Signal once every rank made its first call: the scenario is under way.
	for tries := 0; ; tries++ {
		started := 0
		for r := range 3 {
			if b, _ := os.ReadFile(filepath.Join(dir, rankLog(r))); bytes.Contains(b, []byte(`"kind":"call"`)) {
				started++
			}
		}
		if started == 3 {
			break
		}
		if tries > 6000 {
			cmd.Process.Kill()
			t.Fatalf("the ranks never made their first call: %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 3 || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("SIGINT: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}

// TestRunBadUsage: bad flags and models exit 2 before starting anything.
func TestRunBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"run"},
		{"run", "twophase"},
		{"run", "era", "--n", "4", "--kill", "4@1ms"},
		{"run", "era", "--kill", "1@1ms", "--kill", "1@2ms"},
		{"run", "era", "--kill", "1"},
		{"run", "era", "--kill", "1@-3ms"},
		{"run", "era", "--kill", "1@1ms", "--crashes", "0"},
		{"run", "era", "--inputs-seed", "4"},
		{"run", "era", "--deadline", "0s"},
		{"validate"},
		{"validate", filepath.Join(t.TempDir(), "missing")},
	} {
		code, _, errs := ftcheck(t, args...)
		if code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}

func copyDir(t *testing.T, dir string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), filepath.Base(dir))
	if err := os.CopyFS(to, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return to
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, s...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editLine replaces line number (from 1) of path by f of it.
func editLine(t *testing.T, path string, line int, f func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) <= line {
		t.Fatalf("%s has %d lines", path, len(lines))
	}
	lines[line-1] = f(lines[line-1])
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunHeaderJSON: run.json records kills with their times.
func TestRunHeaderJSON(t *testing.T) {
	var k killFlag
	for _, s := range []string{"3@50ms", "0@120ms"} {
		if err := k.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(runHeader{Model: "era", N: 8, Kills: k})
	if err != nil || !strings.Contains(string(b), `{"rank":3,"at_ns":50000000,"done":false}`) {
		t.Errorf("%s %v", b, err)
	}
}
