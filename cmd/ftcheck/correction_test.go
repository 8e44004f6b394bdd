package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// issue10Example is the early-correction example of docs/correction.md:
// every child of the root fails, so
// only the root is colored by the tree, and its opportunistic correction
// reaches ranks 1 … 4 and 60 … 63.
var issue10Example = []string{"simulate", "correction", "--tree", "binomial", "--correction", "opportunistic", "--d", "4",
	"--start", "overlapped", "--P", "64", "--L", "2", "--o", "1", "--g", "1", "--faults", "1,2,4,8,16,32", "--json"}

// TestSimulateIssue10EarlyRules: with --early silent (§3.1 read strictly)
// the correction-colored processes 3, 60 … 63 send nothing, so 52 live
// processes stay uncolored and only the root's 6 tree and 8 correction
// messages are sent (as worked out by hand); with the default
// --early forwards (§3.3) they send their tree messages and everybody is
// colored. Opportunistic correction guarantees neither, so both exit 0.
func TestSimulateIssue10EarlyRules(t *testing.T) {
	for _, c := range []struct {
		early               string
		uncolored, messages float64
	}{{"silent", 52, 14}, {"forwards", 0, 168}} {
		code, out, errs := ftcheck(t, append(issue10Example, "--early", c.early)...)
		if code != 0 {
			t.Fatalf("--early %s: exit %d: %s %s", c.early, code, out, errs)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if m["uncolored"] != c.uncolored || m["messages"] != c.messages {
			t.Errorf("--early %s: uncolored %v, messages %v; want %v, %v", c.early, m["uncolored"], m["messages"], c.uncolored, c.messages)
		}
	}
	if code, _, errs := ftcheck(t, append(issue10Example, "--early", "loud")...); code != 2 || !strings.Contains(errs, "--early") {
		t.Errorf("--early loud: exit %d, stderr %q; want 2 naming --early", code, errs)
	}
}

// TestSimulateChecksGuarantees: ftcheck simulate exits 1 when a run breaks
// its variant's guarantee, naming the run, the seed and the fault set (the
// LogP-only mutants: delayed correction's stop reply sent by processes
// colored by correction, optimized correction's mirrored rule), and 0 on
// the correct protocol at the same flags.
func TestSimulateChecksGuarantees(t *testing.T) {
	for _, c := range []struct {
		args, property string
	}{
		{"--P 1024 --tree binomial-inorder --correction delayed --start overlapped --L 6 --fault-rate 0.15 --runs 40 --seed 2", "non-faulty-liveness"},
		{"--P 256 --tree binomial-inorder --correction optimized --d 4 --start synchronized --L 4 --o 2 --fault-rate 0.15 --runs 40 --seed 2", "optimized-covers-opportunistic"},
	} {
		args := append([]string{"simulate", "correction"}, strings.Fields(c.args)...)
		if code, out, errs := ftcheck(t, args...); code != 0 {
			t.Errorf("%s: exit %d on the correct protocol: %s %s", c.args, code, out, errs)
		}
		mut := "delayed-reply-by-anyone"
		if strings.Contains(c.args, "optimized") {
			mut = "optimized-mirror"
		}
		code, out, _ := ftcheck(t, append(args, "--mutant", mut)...)
		if code != 1 || !strings.Contains(out, "VIOLATION of "+c.property) || !strings.Contains(out, "(seed 2, failed {") {
			t.Errorf("%s --mutant %s: exit %d, want 1 with a %s violation naming seed and faults:\n%s", c.args, mut, code, c.property, out)
		}
	}
	// The exhaustive checker refuses the LogP-only mutants.
	if code, _, errs := ftcheck(t, "check", "correction", "--P", "3", "--mutant", "optimized-mirror"); code != 2 || !strings.Contains(errs, "simulate") {
		t.Errorf("check --mutant optimized-mirror: exit %d, stderr %q; want 2 pointing to simulate", code, errs)
	}
}

// TestCheckEarlyAndFlogsimFlags: ftcheck check correction takes --early,
// --cover-stop and --no-over-root, and the properties (correction-colored
// -silent with the chosen rule among them) hold.
func TestCheckEarlyAndFlogsimFlags(t *testing.T) {
	for _, extra := range [][]string{
		{"--start", "overlapped", "--correction", "opportunistic", "--d", "1", "--early", "silent"},
		{"--correction", "checked", "--cover-stop", "--no-over-root", "--faults-before-correction"},
	} {
		args := append([]string{"check", "correction", "--P", "4", "--faults", "1", "--quiet"}, extra...)
		if code, out, errs := ftcheck(t, args...); code != 0 || !strings.Contains(out, "all checked properties hold") {
			t.Errorf("%v: exit %d: %s %s", extra, code, out, errs)
		}
	}
}
