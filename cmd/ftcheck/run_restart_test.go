package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// restartSummary is what the restart tests read of run's JSON summary.
type restartSummary struct {
	runSummary
	Notes    []string `json:"notes"`
	Restarts []struct {
		Rank        int    `json:"rank"`
		Done        bool   `json:"done"`
		Incarnation uint64 `json:"incarnation"`
	} `json:"restarts"`
}

// TestRunMsglogRestartValidate runs Fig. 5.1's program (3 processes and
// the centralized logger), kills P1 at a random time in its first 120 ms
// (its program takes about that long, each step fsyncing its stable
// storage) or after it finished, and restarts it 200 ms later from its
// stable storage on disk. Every process, the restarted one included,
// finishes its program, the outputs are those of a failure-free run, the
// restarted process's journal and stable state are on disk, and the trace
// (both incarnations' logs of p1) validates against the model.
//
// One verdict of validate is accepted, logged, in place of success, and
// the run made again (up to 3 runs): a kill that fell between a step's
// log line and its socket writes loses the step's messages, which the
// model's channels cannot (docs/runtime.md, "Crash recovery").
func TestRunMsglogRestartValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	t.Logf("draw seed %d", seed)
	for try := 1; ; try++ {
		kill := time.Duration(rng.IntN(120)) * time.Millisecond
		if rng.IntN(4) == 0 {
			kill = 400 * time.Millisecond // after P1 finished: it replays its whole program
		}
		vout, lost := runMsglogRestart(t, kill)
		if !lost {
			return
		}
		if try == 3 {
			t.Fatalf("3 runs, each with a message lost at the kill:\n%s", vout)
		}
		t.Logf("try %d, kill at %v: a message lost at the kill; again:\n%s", try, kill, vout)
	}
}

// runMsglogRestart runs the scenario of TestRunMsglogRestartValidate with
// the kill at kill, checks the run, and validates it. It reports whether
// validate found a message lost at the kill (with its output), and fails
// the test on any other problem.
func runMsglogRestart(t *testing.T, kill time.Duration) (string, bool) {
	t.Helper()
	args := []string{"msglog", "--program", "fig51", "--procs", "3",
		"--kill", fmt.Sprintf("1@%v", kill), "--restart", fmt.Sprintf("1@%v", kill+200*time.Millisecond)}
	dir := filepath.Join(t.TempDir(), "msglog")
	code, out, errs := ftcheckProcess(t, append(append([]string{"run"}, args...), "--trace", dir, "--json")...)
	var sum restartSummary
	decodeOne(t, out, &sum)
	if code != 0 || !sum.OK {
		t.Fatalf("run %v: exit %d, %+v\nstderr: %s", args, code, sum, errs)
	}
	if len(sum.Restarts) != 1 || !sum.Restarts[0].Done || sum.Restarts[0].Incarnation != 1 {
		t.Errorf("want p1 restarted once as incarnation 1: %+v", sum.Restarts)
	}
	for _, p := range sum.Processes {
		if p.Killed || !p.Finished {
			t.Errorf("p%d: killed %v, finished %v; want every process live and finished", p.Rank, p.Killed, p.Finished)
		}
	}
	if len(sum.Notes) != 1 || !strings.Contains(sum.Notes[0], "equal to one") {
		t.Errorf("want the outputs equal to a failure-free run's: %q", sum.Notes)
	}
	for _, f := range []string{"p1.ndjson", "p1.1.ndjson", "state/p1/journal"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	vcode, vout, verrs := ftcheck(t, "validate", dir)
	if vcode == 1 && strings.Contains(vout, "p1 was killed: if its killed incarnation logged a send") {
		return vout, true
	}
	if vcode != 0 || !strings.Contains(vout, "every checked property holds") || !strings.Contains(vout, "restarted: p1") {
		t.Fatalf("validate (run %v): exit %d\n%s%s", args, vcode, vout, verrs)
	}
	// The restart's effects are the model's Recover() stepped with
	// Restart: a restart line without them diverges.
	path := filepath.Join(dir, "p1.1.ndjson")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 3)
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &rec); err != nil || rec["ev"].(map[string]any)["kind"] != "restart" {
		t.Fatalf("p1.1.ndjson:2 is not the restart (%v): %s", err, lines[1])
	}
	rec["eff"] = []any{}
	nb, _ := json.Marshal(rec)
	lines[1] = string(nb)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := ftcheck(t, "validate", dir); code != 1 || !strings.Contains(out, "p1.1.ndjson:2") || !strings.Contains(out, "diverged") {
		t.Errorf("validate with the restart's effects removed: exit %d, want 1 naming p1.1.ndjson:2 as diverged\n%s", code, out)
	}
	return vout, false
}

// TestRunMsglogMutantRejected: under retransmit-received a restarted P1
// transmits again m1, which P0 had received: when P1 is killed after it
// sent m1 and before it sent m5, P0, still waiting for m5, delivers m1 a
// second time. Its output is then no failure-free run's (run exit 1), and
// validate finds the duplicate delivery. The window's place and width
// depend on the machine (each of P1's steps fsyncs its stable storage), so
// the kill time is searched by bisection over [0, 200 ms): P0's log says
// whether a kill fell too early (m1 not received from the killed P1
// before P0 is told of the restart) or too late (m5 received too).
func TestRunMsglogMutantRejected(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	lo, hi := time.Duration(0), 200*time.Millisecond
	for try := 0; try < 30 && hi-lo > 10*time.Microsecond; try++ {
		kill := (lo + hi) / 2
		dir := filepath.Join(t.TempDir(), "msglog")
		args := []string{"run", "msglog", "--program", "fig51", "--procs", "3", "--mutant", "retransmit-received",
			"--kill", fmt.Sprintf("1@%v", kill), "--restart", fmt.Sprintf("1@%v", kill+100*time.Millisecond), "--trace", dir}
		code, out, errs := ftcheckProcess(t, args...)
		log, err := os.ReadFile(filepath.Join(dir, "p0.ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		// Before P0 is told of P1's restart: m1 received, m5 not.
		before, _, _ := strings.Cut(string(log), `"kind":"recovered"`)
		switch {
		case !strings.Contains(before, `"text":"recv APP(seq=1`):
			t.Logf("kill at %v: P0 had not received m1 from the killed P1: later", kill)
			lo = kill
			continue
		case strings.Contains(before, `"text":"recv APP(seq=2`):
			t.Logf("kill at %v: P0 had received m5 too: earlier", kill)
			hi = kill
			continue
		}
		if code != 1 || !strings.Contains(out, "are those of no failure-free run") {
			t.Errorf("run %v: exit %d, want 1 with outputs of no failure-free run\n%s%s", args, code, out, errs)
		}
		vcode, vout, verrs := ftcheck(t, "validate", dir)
		if vcode != 1 || !strings.Contains(vout, "no-duplicate-delivery violated") {
			t.Errorf("validate: exit %d, want 1 with no-duplicate-delivery violated\n%s%s", vcode, vout, verrs)
		}
		return
	}
	t.Fatalf("no kill fell between P1's sends of m1 and m5 (the search ended at [%v, %v])", lo, hi)
}

// TestRunRestartBadUsage: restarts the run cannot make exit 2 before
// starting anything.
func TestRunRestartBadUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "msglog", "--restart", "1@10ms"}, "only a crashed process restarts"},
		{[]string{"run", "msglog", "--kill", "2@5ms", "--restart", "1@10ms", "--crashes", "2"}, "is not killed"},
		{[]string{"run", "msglog", "--kill", "1@20ms", "--restart", "1@10ms"}, "not after its kill"},
		{[]string{"run", "msglog", "--kill", "1@20ms", "--restart", "1@30ms", "--restart", "1@40ms"}, "restarted twice"},
		{[]string{"run", "msglog", "--kill", "3@20ms", "--restart", "3@30ms"}, "never fails"},
		{[]string{"run", "msglog", "--kill", "1@20ms", "--restart", "7@30ms"}, "out of range"},
		{[]string{"run", "msglog", "--kill", "1@20ms", "--restart", "1@x"}, "not a duration"},
		{[]string{"run", "era", "--n", "4", "--kill", "1@20ms", "--restart", "1@30ms"}, "no crash-recovery"},
		{[]string{"run", "msglog", "--logger", "parallel", "--kill", "1@20ms", "--restart", "1@30ms"}, "does not restart"},
	} {
		code, out, errs := ftcheck(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 1 {
			t.Errorf("%v: exit %d, want 2 with %q\n%s%s", c.args, code, c.want, out, errs)
		}
	}
}
