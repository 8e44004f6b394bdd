package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestHelpExitsZero: ftcheck -h, ftcheck help and every subcommand's -h
// (with and without a model) print to stdout, nothing to stderr, and exit
// 0; each lists the flags of its own command.
func TestHelpExitsZero(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string // substrings of stdout: flags of that command
	}{
		{[]string{"-h"}, []string{"ftcheck replay", "ftcheck version"}},
		{[]string{"--help"}, []string{"ftcheck check MODEL"}},
		{[]string{"help"}, []string{"ftcheck simulate MODEL"}},
		{[]string{"help", "replay"}, []string{"-itf"}},
		{[]string{"list", "-h"}, []string{"-json"}},
		{[]string{"check", "-h"}, []string{"models: ", "correction, ", "era, ", " (their flags", "-max-states", "-mutants"}},
		{[]string{"check", "era", "-h"}, []string{"-topology", "-crashes", "-max-states"}},
		{[]string{"check", "era", "--n", "3", "--help"}, []string{"-topology"}},
		{[]string{"check", "correction", "-h"}, []string{"-correction", "-faults-before-correction"}},
		{[]string{"check", "twophase", "-h"}, []string{"-rm"}},
		{[]string{"simulate", "-h"}, []string{"models: ", "correction, ", "era, ", "-json"}},
		{[]string{"simulate", "era", "-h"}, []string{"-walks", "-seed", "-out"}},
		{[]string{"simulate", "correction", "-h"}, []string{"-runs", "-fault-rate"}},
		{[]string{"replay", "-h"}, []string{"-itf", "-html", "-shrink", "-json"}},
		{[]string{"replay", "some.json", "-h"}, []string{"-itf"}},
		{[]string{"version", "-h"}, []string{"ftcheck version"}},
	} {
		code, out, errs := ftcheck(t, c.args...)
		if code != 0 || errs != "" {
			t.Errorf("%v: exit %d, stderr %q; want 0 and nothing", c.args, code, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: stdout lacks %q:\n%s", c.args, w, out)
			}
		}
	}
}

// TestUsageErrorOneLine: a usage error prints one line on stderr naming the
// -h command that lists the right flags, nothing on stdout, and exits 2.
func TestUsageErrorOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // the whole stderr line
	}{
		{[]string{"check", "era", "--foo"}, "ftcheck check era: unknown flag --foo; run 'ftcheck check era -h'"},
		{[]string{"check", "era", "-foo=1"}, "ftcheck check era: unknown flag -foo; run 'ftcheck check era -h'"},
		{[]string{"simulate", "correction", "--bogus"}, "ftcheck simulate correction: unknown flag --bogus; run 'ftcheck simulate correction -h'"},
		{[]string{"replay", "--bogus"}, "ftcheck replay: unknown flag --bogus; run 'ftcheck replay -h'"},
		{[]string{"list", "--bogus"}, "ftcheck list: unknown flag --bogus; run 'ftcheck list -h'"},
		{[]string{"check"}, "ftcheck check: name a model (" + modelNames() + "); run 'ftcheck check -h'"},
		{[]string{"frobnicate"}, "ftcheck frobnicate: unknown command; run 'ftcheck -h'"},
	} {
		code, out, errs := ftcheck(t, c.args...)
		if code != 2 || out != "" || errs != c.want+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestVersion: ftcheck version exits 0 with one line naming the module;
// versionLine reports the VCS settings of a build that recorded them.
func TestVersion(t *testing.T) {
	code, out, errs := ftcheck(t, "version")
	if code != 0 || errs != "" || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "ftcheck ") || !strings.Contains(out, "revision") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Path: "github.com/ftkernel/ftkernel/cmd/ftcheck",
		Main: debug.Module{Path: "github.com/ftkernel/ftkernel", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123abcd"},
			{Key: "vcs.time", Value: "2026-11-24T01:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	want := "ftcheck github.com/ftkernel/ftkernel v0.3.0, revision 0123abcd (modified), 2026-11-24T01:00:00Z, go1.26.0"
	if got := versionLine(bi); got != want {
		t.Errorf("versionLine = %q, want %q", got, want)
	}
	bi.Settings, bi.Main.Version = nil, ""
	want = "ftcheck github.com/ftkernel/ftkernel (devel), revision unknown, go1.26.0"
	if got := versionLine(bi); got != want {
		t.Errorf("versionLine without VCS = %q, want %q", got, want)
	}
}

// TestReplayITF: replay --itf writes an ITF document (one state per step
// plus the initial one, each with mbt::actionTaken, the spec's variable
// names) for an ERA and a Corrected Trees counterexample, keeps replay's
// exit status (1: the violation is reproduced), also for twophase
// (TwoPhase.tla's variables; TestITFEveryModel covers every model).
func TestReplayITF(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		check []string
		vars  []string
	}{
		{[]string{"check", "era", "--n", "3", "--crashes", "2", "--property", "uniform-agreement"},
			[]string{"S", "requested", "result", "current", "status", "contributed", "input", "crashed", "msgs", "decided", "mbt::actionTaken"}},
		{[]string{"check", "correction", "--P", "6", "--correction", "opportunistic", "--d", "1", "--faults", "2",
			"--faults-before-correction", "--mutant", "opportunistic-left-only"},
			[]string{"node", "armed", "clock", "crashed", "msgs", "mbt::actionTaken"}},
	} {
		code, out, _ := ftcheck(t, append(c.check, "--json", "--quiet", "--out", dir)...)
		var sum struct {
			Violations []struct {
				Steps     int    `json:"steps"`
				TraceFile string `json:"trace_file"`
			} `json:"violations"`
		}
		if code != 1 || json.Unmarshal([]byte(out), &sum) != nil || len(sum.Violations) != 1 {
			t.Fatalf("%v: exit %d: %s", c.check, code, out)
		}
		trace := sum.Violations[0].TraceFile
		itf := filepath.Join(dir, filepath.Base(trace)+".itf.json")
		code, out, errs := ftcheck(t, "replay", trace, "--itf", itf)
		if code != 1 || !strings.Contains(out, "ITF trace written to "+itf) {
			t.Fatalf("replay --itf: exit %d:\n%s%s", code, out, errs)
		}
		b, err := os.ReadFile(itf)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Meta   map[string]any   `json:"#meta"`
			Vars   []string         `json:"vars"`
			States []map[string]any `json:"states"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Meta["format"] != "ITF" || strings.Join(doc.Vars, ",") != strings.Join(c.vars, ",") {
			t.Errorf("%s: meta %v, vars %v; want ITF, %v", itf, doc.Meta, doc.Vars, c.vars)
		}
		if len(doc.States) != sum.Violations[0].Steps+1 {
			t.Errorf("%s: %d states for a %d-step trace", itf, len(doc.States), sum.Violations[0].Steps)
		}
		for i, st := range doc.States {
			for _, v := range c.vars {
				if _, ok := st[v]; !ok {
					t.Errorf("%s: state %d lacks %s", itf, i, v)
				}
			}
			if a, _ := st["mbt::actionTaken"].(string); a == "" || (i == 0) != (a == "init") {
				t.Errorf("%s: state %d taken by %q", itf, i, a)
			}
		}
	}
	code, out, _ := ftcheck(t, "check", "twophase", "--rm", "2", "--mutant", "broken-commit", "--json", "--quiet", "--out", dir)
	var sum struct {
		Violations []struct {
			TraceFile string `json:"trace_file"`
		} `json:"violations"`
	}
	if code != 1 || json.Unmarshal([]byte(out), &sum) != nil || len(sum.Violations) == 0 {
		t.Fatalf("twophase broken-commit: exit %d: %s", code, out)
	}
	code, out, errs := ftcheck(t, "replay", sum.Violations[0].TraceFile, "--itf", filepath.Join(dir, "x.itf"))
	if code != 1 || !strings.Contains(out, "ITF trace written to") {
		t.Errorf("twophase --itf: exit %d, %q%q", code, out, errs)
	}
}

// TestBadInput: corrupt, truncated or inconsistent trace files, unknown
// models, bad flag values and unexpected arguments all give exit 2 and one
// line on stderr saying what was wrong, never a panic (a panic would end
// the test binary) and never a verdict on stdout.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := ftcheck(t, "check", "era", "--n", "3", "--crashes", "2", "--property", "uniform-agreement", "--json", "--quiet", "--out", dir)
	var sum struct {
		Violations []struct {
			TraceFile string `json:"trace_file"`
		} `json:"violations"`
	}
	if code != 1 || json.Unmarshal([]byte(out), &sum) != nil || len(sum.Violations) != 1 {
		t.Fatalf("exit %d: %s", code, out)
	}
	good, err := os.ReadFile(sum.Violations[0].TraceFile)
	if err != nil {
		t.Fatal(err)
	}
	// edit returns a copy of the good trace with one JSON field replaced.
	edit := func(mod func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		mod(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	param := func(k, v string) func(m map[string]any) {
		return func(m map[string]any) { m["params"].(map[string]any)[k] = v }
	}
	firstStep := func(k string, v any) func(m map[string]any) {
		return func(m map[string]any) {
			st := m["steps"].([]any)[0].(map[string]any)
			st["action"].(map[string]any)[k] = v
		}
	}
	traces := map[string][]byte{
		"empty":          nil,
		"not-json":       []byte("{this is not json"),
		"truncated":      good[:len(good)/2],
		"trailing":       append(append([]byte{}, good...), []byte(`{"model":"x"}`)...),
		"array":          []byte(`[1, 2, 3]`),
		"unknown-field":  edit(func(m map[string]any) { m["bogus"] = 1 }),
		"no-model":       edit(func(m map[string]any) { delete(m["params"].(map[string]any), "model") }),
		"unknown-model":  edit(param("model", "raft")),
		"bad-n":          edit(param("n", "0")),
		"n-not-a-number": edit(param("n", "four")),
		"bad-topology":   edit(param("topology", "ring")),
		"bad-mutant":     edit(param("mutant", "no-such-mutant")),
		"unknown-param":  edit(param("no-such-flag", "1")),
		"negative-init":  edit(func(m map[string]any) { m["init"] = -1 }),
		"init-too-large": edit(func(m map[string]any) { m["init"] = 1 << 20 }),
		"rank-too-large": edit(firstStep("p", 1<<20)),
		"unknown-kind":   edit(firstStep("kind", 200)),
		"violation-past": edit(func(m map[string]any) { m["violation"].(map[string]any)["steps"] = 1000 }),
	}
	for name, b := range traces {
		path := filepath.Join(dir, name+".json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr := func(name string) string { return filepath.Join(dir, name+".json") }
	cases := [][]string{
		{"replay", filepath.Join(dir, "missing.json")},
		{"replay", tr("a"), tr("b")},
		{"replay", sum.Violations[0].TraceFile, "--html"},
		{"replay", sum.Violations[0].TraceFile, "--itf"},
		{"check", "raft"},
		{"check", "--n", "3"},
		{"check", "era", "--n", "x"},
		{"check", "era", "--n", "0"},
		{"check", "era", "--n", "13"},
		{"check", "era", "--crashes", "3", "--n", "3"},
		{"check", "era", "--crashes", "-1"},
		{"check", "era", "--values", "0"},
		{"check", "era", "--topology", "ring"},
		{"check", "era", "--network", "carrier-pigeon"},
		{"check", "era", "--op", "or"},
		{"check", "era", "--fail", "7"},
		{"check", "era", "--mutant", "nosuch"},
		{"check", "era", "--property", "nosuch"},
		{"check", "era", "--workers", "many"},
		{"check", "era", "stray"},
		{"check", "correction", "--P", "0"},
		{"check", "correction", "--tree", "oak"},
		{"check", "correction", "--correction", "maybe"},
		{"check", "twophase", "--rm", "-1"},
		{"simulate"},
		{"simulate", "raft"},
		{"simulate", "twophase"},
		{"simulate", "era", "--walks", "-1"},
		{"simulate", "era", "--fail", "99"},
		{"simulate", "correction", "--P", "0"},
		{"simulate", "correction", "--prio", "sideways"},
		{"simulate", "correction", "--fault-rate", "2"},
		{"simulate", "correction", "--fault-rate", "-0.1"},
		{"list", "extra"},
		{"version", "extra"},
	}
	for name := range traces {
		cases = append(cases, []string{"replay", tr(name)}, []string{"replay", tr(name), "--itf", tr(name) + ".itf"})
	}
	for _, args := range cases {
		code, out, errs := ftcheck(t, args...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "ftcheck") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, errs)
		}
		if strings.Contains(out, "all checked properties hold") || strings.Contains(out, "reproduces the violation") {
			t.Errorf("%v: a verdict on bad input:\n%s", args, out)
		}
	}
}
