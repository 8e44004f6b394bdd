package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs the test binary as ftcheck itself when FTCHECK_AS_MAIN is
// set, so that tests can start it as a real process and signal it.
func TestMain(m *testing.M) {
	if os.Getenv("FTCHECK_AS_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// decodeOne decodes out as exactly one JSON document into v.
func decodeOne(t *testing.T, out string, v any) {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(out))
	if err := d.Decode(v); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var extra any
	if err := d.Decode(&extra); !errors.Is(err, io.EOF) {
		t.Fatalf("more than one JSON document (%v):\n%s", err, out)
	}
}

// TestExitStatusIncomplete: a run stopped by --max-states, --max-depth or
// the memory bound exits 3 (complete=false in its one JSON document), a
// complete one 0, a violation 1.
func TestExitStatusIncomplete(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args     []string
		code     int
		complete bool
	}{
		{[]string{"check", "twophase", "--rm", "3"}, 0, true},
		{[]string{"check", "twophase", "--rm", "3", "--max-states", "10"}, 3, false},
		{[]string{"check", "twophase", "--rm", "3", "--max-depth", "2"}, 3, false},
		{[]string{"check", "twophase", "--rm", "3", "--dfs", "--max-depth", "2"}, 3, false},
		{[]string{"check", "twophase", "--rm", "3", "--max-states", "10", "--mutant", "broken-commit"}, 3, false},
		{[]string{"check", "twophase", "--rm", "3", "--mutant", "broken-commit"}, 1, false},
	} {
		code, out, errs := ftcheck(t, append(c.args, "--json", "--quiet", "--out", dir)...)
		var sum struct {
			Complete bool `json:"complete"`
		}
		decodeOne(t, out, &sum)
		if code != c.code || sum.Complete != c.complete {
			t.Errorf("%v: exit %d, complete=%v; want %d, %v (%s)", c.args, code, sum.Complete, c.code, c.complete, errs)
		}
	}
	code, out, _ := ftcheck(t, "check", "twophase", "--rm", "3", "--max-states", "10", "--quiet", "--out", dir)
	if code != 3 || !strings.Contains(out, "incomplete, nothing proved") {
		t.Errorf("human summary of a bounded run: exit %d:\n%s", code, out)
	}
}

// TestMutantsOneJSONDocument: check --mutants --json prints one JSON
// object holding the mutants' rows; a mutant that survives (here at a
// depth too small to catch broken-commit) makes the run fail with exit 1.
func TestMutantsOneJSONDocument(t *testing.T) {
	dir := t.TempDir()
	type row struct {
		Mutant string `json:"mutant"`
		Caught bool   `json:"caught"`
	}
	var sum struct {
		Properties []string `json:"properties"`
		Mutants    []row    `json:"mutants"`
	}
	code, out, _ := ftcheck(t, "check", "twophase", "--rm", "3", "--json", "--mutants", "--quiet", "--out", dir)
	decodeOne(t, out, &sum)
	if code != 0 || len(sum.Mutants) != 2 || !sum.Mutants[0].Caught || !sum.Mutants[1].Caught {
		t.Fatalf("exit %d: %s", code, out)
	}
	if strings.Join(sum.Properties, ",") != "TPTypeOK,TCConsistent" {
		t.Errorf("properties %v, want the two that ran", sum.Properties)
	}
	sum.Mutants = nil
	code, out, _ = ftcheck(t, "check", "twophase", "--rm", "3", "--json", "--mutants", "--max-depth", "1", "--quiet", "--out", dir)
	decodeOne(t, out, &sum)
	if code != 1 || len(sum.Mutants) != 2 || sum.Mutants[0].Mutant != "broken-commit" || sum.Mutants[0].Caught {
		t.Fatalf("a surviving mutant: exit %d: %s", code, out)
	}
	code, out, _ = ftcheck(t, "check", "twophase", "--rm", "3", "--mutants", "--max-depth", "1", "--quiet", "--out", dir)
	if code != 1 || !strings.Contains(out, "SURVIVED") || !strings.Contains(out, "a mutant survived") {
		t.Fatalf("a surviving mutant, human: exit %d: %s", code, out)
	}
}

// TestOutCheckedBeforeSearch: an --out that is empty, a file or not
// writable is refused with exit 2 and one line before anything is
// searched (the run would find a violation).
func TestOutCheckedBeforeSearch(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ out, want string }{
		{"", `--out "": name a directory`},
		{file, "--out " + file + ": not a directory"},
		{"/proc/ftcheck-test", "--out"},
		{"/proc", "--out /proc: cannot write there"},
	} {
		for _, cmd := range [][]string{
			{"check", "twophase", "--rm", "2", "--mutant", "broken-commit", "--quiet"},
			{"simulate", "era", "--n", "4", "--walks", "2"},
		} {
			code, out, errs := ftcheck(t, append(cmd, "--out", c.out)...)
			if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
				t.Errorf("%v --out %q: exit %d, stdout %q, stderr %q; want 2, nothing, %q", cmd, c.out, code, out, errs, c.want)
			}
		}
	}
	// A missing directory is created, and removed again if no trace went
	// into it.
	missing := filepath.Join(t.TempDir(), "a", "b")
	if code, _, _ := ftcheck(t, "check", "twophase", "--rm", "2", "--quiet", "--out", missing); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty --out left behind: %v", err)
	}
	if code, _, _ := ftcheck(t, "check", "twophase", "--rm", "2", "--mutant", "broken-commit", "--quiet", "--out", missing); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if m, _ := filepath.Glob(filepath.Join(missing, "*.json")); len(m) != 1 {
		t.Errorf("traces in a created --out: %v", m)
	}
}

// TestViolationKeptWhenTraceUnwritable: when the trace file cannot be
// written after the search, the counterexample is printed anyway (in the
// JSON document too), the error is one warning line on stderr, and the
// exit status is still 1.
func TestViolationKeptWhenTraceUnwritable(t *testing.T) {
	defer func(w func(string, []byte) error) { writeTrace = w }(writeTrace)
	writeTrace = func(string, []byte) error { return errors.New("disk full") }
	dir := t.TempDir()
	args := []string{"check", "twophase", "--rm", "2", "--mutant", "broken-commit", "--quiet", "--out", dir}
	code, out, errs := ftcheck(t, args...)
	if code != 1 || !strings.Contains(out, "VIOLATION of TCConsistent") || !strings.Contains(out, "RMRcvCommitMsg") ||
		strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "warning") || !strings.Contains(errs, "disk full") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, errs = ftcheck(t, append(args, "--json")...)
	var sum struct {
		Violations []struct {
			TraceFile string `json:"trace_file"`
			Trace     *struct {
				Steps []any `json:"steps"`
			} `json:"trace"`
		} `json:"violations"`
	}
	decodeOne(t, out, &sum)
	if code != 1 || len(sum.Violations) != 1 || sum.Violations[0].Trace == nil || len(sum.Violations[0].Trace.Steps) != 3 ||
		!strings.Contains(errs, "disk full") {
		t.Fatalf("--json: exit %d: %s\n%s", code, out, errs)
	}
	code, out, _ = ftcheck(t, "simulate", "era", "--n", "8", "--walks", "200", "--crashes", "3", "--crash-prob", "0.2", "--mutant", "no-up-to-new-parent", "--json", "--quiet", "--out", dir)
	var sim struct {
		Violations []struct {
			Trace *struct{} `json:"trace"`
		} `json:"violations"`
	}
	decodeOne(t, out, &sim)
	if code != 1 || len(sim.Violations) != 1 || sim.Violations[0].Trace == nil {
		t.Fatalf("simulate: exit %d: %s", code, out)
	}
}

// TestTraceNamesPerConfiguration: traces of two configurations with the
// same model, property and mutant go to two files; the same run again
// reuses its file; a different file already at that name is kept and the
// trace goes to a new name.
func TestTraceNamesPerConfiguration(t *testing.T) {
	dir := t.TempDir()
	trace := func(args ...string) string {
		t.Helper()
		code, out, _ := ftcheck(t, append(append([]string{"check", "twophase", "--mutant", "broken-commit"}, args...), "--json", "--quiet", "--out", dir)...)
		var sum struct {
			Violations []struct {
				TraceFile string `json:"trace_file"`
			} `json:"violations"`
		}
		decodeOne(t, out, &sum)
		if code != 1 || len(sum.Violations) != 1 {
			t.Fatalf("%v: exit %d: %s", args, code, out)
		}
		return sum.Violations[0].TraceFile
	}
	a, b := trace("--rm", "2"), trace("--rm", "3")
	name := regexp.MustCompile(`^twophase-TCConsistent-broken-commit-[0-9a-f]{8}\.json$`)
	if a == b || !name.MatchString(filepath.Base(a)) || !name.MatchString(filepath.Base(b)) {
		t.Fatalf("traces %s and %s", a, b)
	}
	if again := trace("--rm", "2"); again != a {
		t.Errorf("the same run wrote %s, not %s", again, a)
	}
	if err := os.WriteFile(a, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := trace("--rm", "2")
	if kept, _ := os.ReadFile(a); string(kept) != "mine\n" || c != strings.TrimSuffix(a, ".json")+"-2.json" {
		t.Errorf("an existing file was overwritten (%q) or the trace went to %s", kept, c)
	}
	if code, out, _ := ftcheck(t, "replay", c); code != 1 || !strings.Contains(out, "reproduces the violation") {
		t.Errorf("replay %s: exit %d:\n%s", c, code, out)
	}
}

// TestGenericFlagsRefused: nonsense values of check's own flags exit 2
// with one line naming the flag and what is wanted (a panic would also
// exit 2, so the message is checked).
func TestGenericFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"twophase", "--workers", "-1"}, "--workers -1: want 0 (one per CPU) to 1024"},
		{[]string{"twophase", "--workers", "10000"}, "--workers 10000: want 0 (one per CPU) to 1024"},
		{[]string{"twophase", "--max-depth", "-3"}, "--max-depth -3: want a depth ≥ 1, or 0 for no bound"},
		{[]string{"twophase", "--max-states", "-1"}, "--max-states -1: want a number of states ≥ 1, or 0 for no bound"},
		{[]string{"twophase", "--max-memory", "-2"}, "--max-memory -2: want MiB ≥ 1, 0 for the machine's bound or -1 for none"},
		{[]string{"twophase", "--checkpoint-every", "0s"}, "--checkpoint-every 0s: want a positive duration"},
		{[]string{"twophase", "--checkpoint-every", "-1s"}, "--checkpoint-every -1s: want a positive duration"},
		{[]string{"twophase", "--queue-memory", "-1"}, "--queue-memory -1: want MiB ≥ 0"},
		{[]string{"twophase", "--property", ""}, `--property "": an empty property name (properties: TPTypeOK, TCConsistent)`},
		{[]string{"twophase", "--property", "TPTypeOK,,TCConsistent"}, "an empty property name"},
		{[]string{"twophase", "--property", "nosuch"}, "--property nosuch: unknown property (properties: TPTypeOK, TCConsistent)"},
		{[]string{"twophase", "--mutants", "--mutant", "broken-commit"}, "--mutants checks every mutant: not with --mutant"},
		{[]string{"era", "--n", "3", "--crashes", "1", "--symmetry"}, "--symmetry: this model has no symmetry to reduce by"},
		{[]string{"correction", "--symmetry"}, "--symmetry: this model has no symmetry to reduce by"},
	} {
		code, out, errs := ftcheck(t, append(append([]string{"check"}, c.args...), "--quiet", "--out", dir)...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
	if code, _, errs := ftcheck(t, "check", "twophase", "--rm", "2", "--symmetry", "--workers", "1024", "--quiet", "--out", dir); code != 0 {
		t.Errorf("twophase --symmetry: exit %d: %s", code, errs)
	}
}

// TestSummaryNamesProperties: the human summary lists the properties
// checked and says "1 worker".
func TestSummaryNamesProperties(t *testing.T) {
	code, out, _ := ftcheck(t, "check", "twophase", "--rm", "2", "--workers", "1", "--quiet", "--out", t.TempDir())
	if code != 0 || !strings.Contains(out, "\nproperties: TPTypeOK, TCConsistent\n") || !strings.Contains(out, ", 1 worker,") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	code, out, _ = ftcheck(t, "check", "twophase", "--rm", "2", "--property", "TCConsistent", "--json", "--quiet", "--out", t.TempDir())
	var sum struct {
		Properties []string `json:"properties"`
	}
	decodeOne(t, out, &sum)
	if code != 0 || strings.Join(sum.Properties, ",") != "TCConsistent" {
		t.Fatalf("exit %d: %s", code, out)
	}
}

// TestSimulateJSONCommonKeys: every model's simulate --json is one object
// with the keys model, mode, seed, complete, violations and seconds.
func TestSimulateJSONCommonKeys(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"era", "--n", "8", "--walks", "2"},
		{"correction", "--P", "64"},
		{"correction", "--P", "64", "--runs", "3", "--fault-rate", "0.05"},
		{"replica", "--walks", "2"},
		{"replica", "--failure-probability"},
		{"ringfd"},
		{"gossipfd", "--load"},
		{"paxos", "--walks", "2"},
		{"eventlogger", "--logger", "classic", "--procs", "4"},
	} {
		code, out, errs := ftcheck(t, append(append([]string{"simulate"}, args...), "--json", "--quiet", "--out", dir)...)
		var doc map[string]any
		decodeOne(t, out, &doc)
		for _, k := range []string{"model", "mode", "seed", "complete", "violations", "seconds"} {
			if _, ok := doc[k]; !ok {
				t.Errorf("%v: no %q: %s", args, k, out)
			}
		}
		if code != 0 || doc["complete"] != true || errs != "" {
			t.Errorf("%v: exit %d, complete %v, stderr %q", args, code, doc["complete"], errs)
		}
		if sec, ok := doc["seconds"].(float64); !ok || sec <= 0 {
			t.Errorf("%v: seconds %v, want the run's time (> 0)", args, doc["seconds"])
		}
	}
}

// TestReplayNoLongerViolates: a trace whose recorded violation no longer
// occurs says so in one line, without printing the recorded violation as
// if it held, and exits 0; one whose step is no longer enabled says so on
// stderr and exits 2; the header names the mutant as the params do.
func TestReplayNoLongerViolates(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := ftcheck(t, "check", "twophase", "--rm", "2", "--mutant", "broken-commit", "--json", "--quiet", "--out", dir)
	var sum struct {
		Violations []struct {
			TraceFile string `json:"trace_file"`
		} `json:"violations"`
	}
	decodeOne(t, out, &sum)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	file := sum.Violations[0].TraceFile
	code, out, _ = ftcheck(t, "replay", file)
	if code != 1 || !strings.Contains(out, "on twophase rm=2 broken mutant=broken-commit\n") ||
		!strings.Contains(out, "replay reproduces the violation: invariant TCConsistent violated after step 3: ") {
		t.Errorf("replay: exit %d:\n%s", code, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The fixed protocol: TMCommit is no longer enabled at the start.
	fixed := filepath.Join(dir, "fixed.json")
	if err := os.WriteFile(fixed, bytes.Replace(b, []byte(`"mutant": "broken-commit"`), []byte(`"mutant": ""`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same steps checked for a property that holds along them.
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, bytes.Replace(b, []byte(`"property": "TCConsistent"`), []byte(`"property": "TPTypeOK"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := ftcheck(t, "replay", other)
	if code != 0 || !strings.HasSuffix(out, "replay: the trace no longer violates TPTypeOK: all 3 steps replay and it holds along them\n") ||
		strings.Contains(out, "violated:") || strings.Contains(out, "every checked property holds") {
		t.Errorf("replay %s: exit %d, stderr %q:\n%s", other, code, errs, out)
	}
	code, out, errs = ftcheck(t, "replay", fixed)
	if want := "ftcheck: replay " + fixed + ": the trace no longer replays: step 1 (TMCommit) is not enabled in the model as built from its params\n"; code != 2 || out != "" || errs != want {
		t.Errorf("replay %s: exit %d, stdout %q, stderr %q; want 2, nothing, %q", fixed, code, out, errs, want)
	}
}

// TestInvocation: the replay hint names the running binary, or go run
// when go run built it.
func TestInvocation(t *testing.T) {
	for arg0, want := range map[string]string{
		"/tmp/go-build1234/b001/exe/ftcheck":     "go run ./cmd/ftcheck",
		goCache() + "/17/17ddd1dfef53-d/ftcheck": "go run ./cmd/ftcheck",
		goCache() + "/17/17ddd1dfef53/ftcheck":   goCache() + "/17/17ddd1dfef53/ftcheck",
		"/home/u/go/bin/ftcheck":                 "/home/u/go/bin/ftcheck",
		"ftcheck":                                "ftcheck",
		"./ftcheck":                              "./ftcheck",
	} {
		if got := invocation(arg0); got != want {
			t.Errorf("invocation(%q) = %q, want %q", arg0, got, want)
		}
	}
	code, out, _ := ftcheck(t, "check", "twophase", "--rm", "2", "--mutant", "broken-commit", "--quiet", "--out", t.TempDir())
	if code != 1 || !strings.Contains(out, "(replay: "+os.Args[0]+" replay ") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestExitCodesDocumented: ftcheck -h and every command's -h give the
// exit statuses.
func TestExitCodesDocumented(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"check", "-h"}, {"check", "era", "-h"}, {"simulate", "-h"}, {"simulate", "era", "-h"}, {"replay", "-h"}, {"list", "-h"}} {
		_, out, _ := ftcheck(t, args...)
		if !strings.Contains(out, exitCodes) || !strings.Contains(out, "3 incomplete") {
			t.Errorf("%v: no exit statuses:\n%s", args, out)
		}
	}
}

// TestSignalStopsRun: SIGINT or SIGTERM stops check and simulate, which
// report what they did and exit 3, also when started with SIGINT ignored,
// as a shell starts a background job.
func TestSignalStopsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ftcheck processes")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		args   []string
		sig    syscall.Signal
		ignore bool
		want   string // in stdout
	}{
		{[]string{"simulate", "replica", "--walks", "1000000"}, syscall.SIGINT, true, `"complete":false`},
		{[]string{"simulate", "correction", "--P", "4096", "--runs", "100000", "--fault-rate", "0.01"}, syscall.SIGTERM, false, `"complete":false`},
		{[]string{"check", "correction", "--P", "8", "--faults", "3", "--max-memory", "3000"}, syscall.SIGINT, true, `"stop":"canceled"`},
	} {
		script := `exec "$0" "$@"`
		if c.ignore {
			script = `trap "" INT; exec "$0" "$@"`
		}
		cmd := exec.Command("sh", append([]string{"-c", script, os.Args[0]}, append(c.args, "--json", "--out", dir)...)...)
		cmd.Env = append(os.Environ(), "FTCHECK_AS_MAIN=1")
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Signal at the first progress line: the run is under way.
		lines := bufio.NewScanner(stderr)
		var errs strings.Builder
		for lines.Scan() {
			errs.WriteString(lines.Text() + "\n")
			if strings.HasPrefix(lines.Text(), "progress:") {
				break
			}
		}
		if err := cmd.Process.Signal(c.sig); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
		rest, _ := io.ReadAll(stderr)
		errs.Write(rest)
		err = cmd.Wait()
		timer.Stop()
		code := cmd.ProcessState.ExitCode()
		if code != 3 || !strings.Contains(stdout.String(), c.want) || !strings.Contains(errs.String(), "ftcheck: interrupted") {
			t.Errorf("%v after %v: exit %d (%v)\nstdout: %s\nstderr: %s", c.args, c.sig, code, err, stdout.String(), errs.String())
		}
	}
}
