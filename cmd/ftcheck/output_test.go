package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/registry"
)

// humanRuns are, for each model, check and simulate commands at small
// sizes (each a few seconds at most) whose human output is read by
// TestHumanOutput. Every registered model has an entry.
var humanRuns = map[string][][]string{
	"abcast": {
		{"check", "abcast", "--variant", "ub", "--core", "3", "--messages", "1"},
		{"check", "abcast", "--variant", "bb", "--core", "3", "--messages", "1", "--crashes", "0", "--mutant", "deliver-on-payload"},
		{"simulate", "abcast", "--variant", "consensus", "--n", "8", "--k", "2"},
	},
	"era": {
		{"check", "era", "--n", "3", "--crashes", "1"},
		{"check", "era", "--n", "3", "--crashes", "2", "--property", "uniform-agreement"},
		{"simulate", "era", "--n", "8", "--walks", "3"},
		{"simulate", "era", "--n", "8", "--walks", "3", "--fail", "0,4", "--op", "ulfm"},
	},
	"correction": {
		{"check", "correction", "--P", "3", "--faults", "1"},
		{"simulate", "correction", "--P", "64", "--faults", "3,5"},
		{"simulate", "correction", "--P", "64"},
		{"simulate", "correction", "--P", "64", "--fault-rate", "0.05", "--runs", "5"},
	},
	"replica": {
		{"check", "replica"},
		{"simulate", "replica", "--walks", "3"},
		{"simulate", "replica", "--failure-probability", "--trials", "100"},
	},
	"ringfd": {
		{"check", "ringfd", "--n", "2", "--procs", "1"},
		{"simulate", "ringfd", "--n", "8", "--procs", "2"},
		{"simulate", "ringfd", "--n", "8", "--procs", "2", "--fail", "3", "--fail-procs", "1"},
	},
	"gossipfd": {
		{"check", "gossipfd", "--n", "3"},
		{"check", "gossipfd", "--n", "4", "--crashes", "2", "--cleanup", "4", "--ping=false"},
		{"check", "gossipfd", "--n", "3", "--timing", "bounded", "--liveness", "--max-rounds", "4"},
		{"simulate", "gossipfd", "--n", "6", "--cleanup-min"},
		{"simulate", "gossipfd", "--n", "6", "--fd-failure", "--exact"},
		{"simulate", "gossipfd", "--n", "6", "--fd-failure", "--trials", "100"},
		{"simulate", "gossipfd", "--n", "6", "--detection"},
		{"simulate", "gossipfd", "--n", "6", "--load"},
		{"simulate", "gossipfd", "--n", "6", "--min-cleanup"},
	},
	"eventlogger": {
		{"check", "eventlogger", "--logger", "centralized"},
		{"check", "eventlogger", "--logger", "centralized", "--crash-logger", "--property", "termination"},
		{"simulate", "eventlogger", "--logger", "classic", "--procs", "4"},
		{"simulate", "eventlogger", "--logger", "parallel", "--procs", "3", "--walks", "3", "--saves", "3"},
	},
	"msglog": {
		{"check", "msglog", "--program", "gather", "--delayed-ack"},
		{"check", "msglog", "--mutant", "gc-live-counter"},
		{"simulate", "msglog", "--program", "fig51", "--procs", "3", "--crash", "1@3"},
		{"simulate", "msglog", "--program", "ring", "--procs", "4", "--walks", "3", "--crashes", "2"},
	},
	"dgrp": {
		{"check", "dgrp"},
		{"check", "dgrp", "--mutant", "no-events-broadcast"},
		{"simulate", "dgrp", "--rounds", "200"},
	},
	"hyperquicksort": {
		{"check", "hyperquicksort"},
		{"check", "hyperquicksort", "--mutant", "skip-store"},
		{"simulate", "hyperquicksort", "--n", "8", "--non-recommended", "2"},
	},
	"paxos": {
		{"check", "paxos", "--instances", "1"},
		{"check", "paxos", "--instances", "2", "--crashes", "0", "--compete", "--mutant", "accept-lower-ballot"},
		{"simulate", "paxos", "--proposers", "3", "--acceptors", "3", "--instances", "5", "--walks", "3"},
	},
	"twophase": {
		{"check", "twophase", "--rm", "2"},
		{"check", "twophase", "--rm", "2", "--mutant", "broken-commit"},
	},
	"adsd": {
		{"check", "adsd", "--n", "8"},
		{"check", "adsd", "--n", "8", "--mutant", "copy-from-faulty"},
		{"simulate", "adsd", "--n", "8", "--faulty", "1,4,5"},
	},
	"hiadsd": {
		{"check", "hiadsd", "--n", "8", "--events", "1"},
	},
	"vcube": {
		{"check", "vcube", "--n", "8"},
		{"check", "vcube", "--n", "8", "--events", "1", "--property", "TestsPerCycle"},
		{"simulate", "vcube", "--n", "8", "--faulty", "4,5,6,7"},
	},
}

// goFormatting matches what Go's %v makes of values that have no String
// method: maps, nil, bad verbs, structs ("{5 99 0 0}", "{termination
// quiescence …}": braces around space-separated fields; a set such as
// "{p1,p5}" or "{0,1}" has no space), slices of numbers ("[0.1 0.2]").
var goFormatting = regexp.MustCompile(`map\[|<nil>|%!|\{[^{}\n]* [^{}\n]*\}|\[[-+0-9.e]+ [-+0-9.e]+`)

// TestHumanOutput: the human output of every model's check and simulate
// (and replay of a counterexample) has no Go formatting and ends with a
// newline.
func TestHumanOutput(t *testing.T) {
	dir := t.TempDir()
	for _, p := range registry.All() {
		runs, ok := humanRuns[p.Name]
		if !ok {
			t.Errorf("model %s: no small check and simulate commands in humanRuns", p.Name)
			continue
		}
		for _, args := range runs {
			args = append(append([]string{}, args...), "--out", dir)
			if args[0] == "check" {
				args = append(args, "--quiet")
			}
			code, out, errs := ftcheck(t, args...)
			if code != 0 && code != 1 {
				t.Errorf("%v: exit %d: %s", args, code, errs)
				continue
			}
			checkHuman(t, strings.Join(args, " "), out)
		}
	}
	traces, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(traces) < 3 {
		t.Errorf("%d counterexamples written, want at least 3 to replay", len(traces))
	}
	for _, tr := range traces {
		_, out, _ := ftcheck(t, "replay", tr)
		checkHuman(t, "replay "+tr, out)
	}
}

// checkHuman fails when out has Go formatting, a line ending in blanks,
// or lacks a final newline.
func checkHuman(t *testing.T, what, out string) {
	t.Helper()
	if out == "" || !strings.HasSuffix(out, "\n") {
		t.Errorf("%s: output does not end with a newline: %q", what, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if m := goFormatting.FindString(line); m != "" {
			t.Errorf("%s: Go formatting %q in %q", what, m, line)
		}
		if strings.TrimRight(line, " \t") != line {
			t.Errorf("%s: a line ends in blanks: %q", what, line)
		}
	}
}

// TestHeaders: the headers say what their numbers mean.
func TestHeaders(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want []string
	}{
		// daemons and processes apart, not only their sum n=6.
		{[]string{"check", "ringfd", "--n", "3", "--procs", "1", "--max-states", "10"},
			[]string{"daemons=3 processes=3", "ranks 0…2 are the daemons, 3…5 the processes"}},
		// the simulator numbers processes after the daemons and says so.
		{[]string{"simulate", "ringfd", "--n", "8", "--procs", "2", "--fail", "3"},
			[]string{"ranks: daemons p0…p7, then processes p8…p23"}},
		{[]string{"simulate", "ringfd", "--n", "8", "--procs", "2"}, []string{"no crash"}},
		// what op and values mean.
		{[]string{"check", "era", "--n", "3", "--crashes", "1", "--max-states", "10"},
			[]string{"values=2 (contributions drawn from {0,1}) op=and (F = bitwise AND of the contributions)"}},
		{[]string{"simulate", "era", "--n", "8", "--walks", "2"}, []string{"fail=none", "by kind: DOWN 14, UP 14"}},
	} {
		code, out, errs := ftcheck(t, append(c.args, "--quiet", "--out", dir)...)
		if c.args[0] == "simulate" {
			code, out, errs = ftcheck(t, append(c.args, "--out", dir)...)
		}
		if code != 0 && code != 3 { // 3: stopped at --max-states
			t.Errorf("%v: exit %d: %s", c.args, code, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, w, out)
			}
		}
	}
}

// TestGossipfdTraceParams: a gossipfd trace's params line gives the
// window, horizon, T_cleanup and bound its model line gives (the settings
// 0 resolved to), and the trace replays.
func TestGossipfdTraceParams(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := ftcheck(t, "check", "gossipfd", "--n", "4", "--crashes", "2", "--cleanup", "4", "--ping=false", "--quiet", "--out", dir)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, w := range []string{"model: gossipfd variant=brr n=4 crashes=2 cleanup=4 ping=false window=4 horizon=12",
		" cleanup=4 ", " detect-bound=7 ", " horizon=12 ", " window=4"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	traces, _ := filepath.Glob(filepath.Join(dir, "gossipfd-accuracy*.json"))
	if len(traces) != 1 {
		t.Fatalf("traces %v", traces)
	}
	if code, out, errs := ftcheck(t, "replay", traces[0]); code != 1 || !strings.Contains(out, "replay reproduces the violation: invariant accuracy violated after step 7") {
		t.Errorf("replay: exit %d:\n%s%s", code, out, errs)
	}
}

// TestTraceKindNames: saved traces name each step's action kind next to
// its number; a trace without the names (as written before) still
// replays; a name that contradicts the number is refused.
func TestTraceKindNames(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args  []string
		names []string // kinds that must appear
	}{
		{[]string{"check", "era", "--n", "3", "--crashes", "2", "--property", "uniform-agreement"}, []string{"call", "deliver", "crash"}},
		{[]string{"check", "twophase", "--rm", "2", "--mutant", "broken-commit"}, []string{"TMCommit"}},
		{[]string{"check", "gossipfd", "--n", "4", "--crashes", "2", "--cleanup", "4", "--ping=false"}, []string{"crash", "round"}},
	} {
		code, out, _ := ftcheck(t, append(c.args, "--json", "--quiet", "--out", dir)...)
		var sum struct {
			Violations []struct {
				TraceFile string `json:"trace_file"`
			} `json:"violations"`
		}
		if code != 1 || json.Unmarshal([]byte(out), &sum) != nil || len(sum.Violations) == 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, out)
		}
		file := sum.Violations[0].TraceFile
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, st := range doc["steps"].([]any) {
			a := st.(map[string]any)["action"].(map[string]any)
			name, _ := a["name"].(string)
			if name == "" {
				t.Errorf("%s: a step without a kind name: %v", file, a)
			}
			seen[name] = true
		}
		for _, n := range c.names {
			if !seen[n] {
				t.Errorf("%s: no step named %q (names %v)", file, n, seen)
			}
		}
		// The same trace without names, as written before kinds had
		// names, replays alike; a wrong name is refused.
		for _, edit := range []struct {
			name     string
			set      func(a map[string]any)
			wantCode int
		}{
			{"numeric", func(a map[string]any) { delete(a, "name") }, 1},
			{"misnamed", func(a map[string]any) { a["name"] = "no-such-kind" }, 2},
		} {
			var d map[string]any
			if err := json.Unmarshal(b, &d); err != nil {
				t.Fatal(err)
			}
			for _, st := range d["steps"].([]any) {
				edit.set(st.(map[string]any)["action"].(map[string]any))
			}
			nb, _ := json.Marshal(d)
			path := filepath.Join(dir, edit.name+"-"+filepath.Base(file))
			if err := os.WriteFile(path, nb, 0o644); err != nil {
				t.Fatal(err)
			}
			if code, out, errs := ftcheck(t, "replay", path); code != edit.wantCode {
				t.Errorf("replay %s: exit %d, want %d:\n%s%s", path, code, edit.wantCode, out, errs)
			}
		}
	}
}

// TestNonsenseRefused: zero or negative periods, delays, timeouts and
// steps, and a negative seed other than -1, exit 2 with one line that
// names the flag (a Go panic would exit 2 too: the message is checked).
// check era --n 3 defaults its crash budget to N-1.
func TestNonsenseRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "ringfd", "--period", "0"}, "--period 0: out of range 1 … "},
		{[]string{"simulate", "ringfd", "--period", "0", "--timeout", "0"}, "--period 0: out of range 1 … "},
		{[]string{"check", "ringfd", "--timeout", "0"}, "--timeout 0: out of range 1 … "},
		{[]string{"check", "ringfd", "--delta", "0"}, "--delta 0: out of range 1 … "},
		{[]string{"check", "ringfd", "--delta", "-2"}, "--delta -2: out of range 1 … "},
		{[]string{"simulate", "ringfd", "--delay-max", "0"}, "--delay-max 0: out of range 1 … "},
		{[]string{"check", "gossipfd", "--timing", "bounded", "--t-gossip", "0"}, "--t-gossip 0: out of range 1 … "},
		{[]string{"check", "gossipfd", "--timing", "bounded", "--delta", "0"}, "--delta 0: out of range 1 … "},
		{[]string{"check", "gossipfd", "--timing", "bounded", "--ping-timeout", "0"}, "--ping-timeout 0: out of range 1 … "},
		{[]string{"check", "gossipfd", "--cleanup", "-1"}, "--cleanup -1: out of range 0 … "},
		{[]string{"check", "gossipfd", "--window", "-3"}, "--window -3: out of range 0 … "},
		{[]string{"simulate", "gossipfd", "--detection", "--t-gossip", "0"}, "--t-gossip 0: want a positive number of seconds"},
		{[]string{"simulate", "gossipfd", "--detection", "--t-gossip", "-1"}, "--t-gossip -1: want a positive number of seconds"},
		{[]string{"simulate", "gossipfd", "--detection", "--ticks-per-round", "0"}, "--ticks-per-round 0: out of range 1 … "},
		{[]string{"check", "replica", "--fd", "brr", "--t-gossip", "0"}, "--t-gossip 0: out of range 1 … "},
		{[]string{"check", "replica", "--fd", "brr", "--delta", "0"}, "--delta 0: out of range 1 … "},
		{[]string{"check", "era", "--inputs-seed", "-7"}, "--inputs-seed -7: out of range -1 … (-1: all input vectors; a seed is ≥ 0)"},
		{[]string{"simulate", "era", "--max-steps", "-1"}, "--max-steps -1: out of range 0 … "},
		{[]string{"simulate", "replica", "--max-steps", "-1"}, "--max-steps -1: out of range 1 … "},
		{[]string{"simulate", "replica", "--max-steps", "0"}, "--max-steps 0: out of range 1 … "},
		{[]string{"simulate", "correction", "--g", "2"}, "--g 2: out of range 0 … 1"},
		{[]string{"check", "correction", "--d", "0", "--correction", "opportunistic"}, "--d 0: out of range 1 … "},
		{[]string{"check", "era", "--crashes", "3", "--n", "3"}, "--crashes 3: out of range 0 … 2"},
		{[]string{"check", "msglog", "--logger", "classic", "--retransmit", "17"}, "--retransmit 17: out of range 0 … 16"},
		{[]string{"check", "msglog", "--retransmit", "5"}, "--retransmit 5 needs --logger classic or parallel"},
	} {
		code, out, errs := ftcheck(t, c.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line with %q", c.args, code, out, errs, c.want)
		}
	}
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "era", "--n", "3"}, "n=3 crashes=2\n"},
		{[]string{"check", "era", "--max-states", "10"}, "n=4 crashes=3\n"},
		{[]string{"check", "era", "--n", "2", "--crashes", "0"}, "n=2 crashes=0\n"},
	} {
		code, out, errs := ftcheck(t, append(c.args, "--quiet", "--out", dir)...)
		if (code != 0 && code != 3) || !strings.Contains(out, c.want) { // 3: stopped at --max-states
			t.Errorf("%v: exit %d, stderr %q; want 0 and a header with %q:\n%s", c.args, code, errs, c.want, out)
		}
	}
}
