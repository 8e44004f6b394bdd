package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func ftcheck(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestListJSON(t *testing.T) {
	code, out, _ := ftcheck(t, "list", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var models []struct {
		Name       string   `json:"name"`
		Properties []string `json:"properties"`
		Mutants    []string `json:"mutants"`
	}
	if err := json.Unmarshal([]byte(out), &models); err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, m := range models {
		byName[m.Name] = i
	}
	era, ok := byName["era"]
	if !ok {
		t.Fatalf("no era in %s", out)
	}
	for _, p := range []string{"termination", "irrevocability", "agreement", "participation", "validity", "uniform-agreement"} {
		if !strings.Contains(strings.Join(models[era].Properties, ","), p) {
			t.Errorf("era lacks property %s", p)
		}
	}
	if len(models[era].Mutants) < 4 {
		t.Errorf("era has %d mutants, want at least 4", len(models[era].Mutants))
	}
}

// TestCheckJSONAndExitCodes: 0 when every property holds, 1 on a violation
// (with a trace file that replays), 2 on bad usage.
func TestCheckJSONAndExitCodes(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := ftcheck(t, "check", "twophase", "--rm", "3", "--json", "--quiet", "--out", dir)
	if code != 0 {
		t.Fatalf("twophase rm=3: exit %d: %s", code, out)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"model", "mode", "states", "transitions", "max_depth", "complete", "seconds", "violations"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("JSON summary lacks %q: %s", k, out)
		}
	}
	if sum["states"].(float64) != 288 || sum["transitions"].(float64) != 1146 {
		t.Errorf("TwoPhase RM=3: %v distinct / %v generated, want 288 / 1146", sum["states"], sum["transitions"])
	}

	code, out, _ = ftcheck(t, "check", "era", "--n", "3", "--crashes", "2", "--property", "uniform-agreement", "--json", "--quiet", "--out", dir)
	if code != 1 {
		t.Fatalf("uniform agreement: exit %d, want 1: %s", code, out)
	}
	var v struct {
		Violations []struct {
			Property  string `json:"property"`
			Steps     int    `json:"steps"`
			TraceFile string `json:"trace_file"`
		} `json:"violations"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Violations) != 1 {
		t.Fatalf("violations: %v %s", err, out)
	}
	if _, err := os.Stat(v.Violations[0].TraceFile); err != nil {
		t.Fatal(err)
	}
	code, out, _ = ftcheck(t, "replay", v.Violations[0].TraceFile)
	if code != 1 || !strings.Contains(out, "reproduces the violation") {
		t.Fatalf("replay: exit %d:\n%s", code, out)
	}

	for _, bad := range [][]string{
		{"check"},
		{"check", "nosuchmodel"},
		{"check", "era", "--n", "0"},
		{"check", "era", "--topology", "ring"},
		{"check", "era", "--mutant", "nosuch"},
		{"check", "era", "--property", "nosuch"},
		{"check", "era", "--bogus-flag"},
		{"replay", filepath.Join(dir, "missing.json")},
		{"frobnicate"},
	} {
		if code, _, errs := ftcheck(t, bad...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", bad, code, errs)
		}
	}
}

// TestSimulateDeterministic: the same seed and flags give the same report.
func TestSimulateDeterministic(t *testing.T) {
	args := []string{"simulate", "era", "--n", "64", "--walks", "20", "--seed", "7", "--fail", "0,4", "--json"}
	_, a, _ := ftcheck(t, args...)
	_, b, _ := ftcheck(t, args...)
	strip := func(s string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("%v: %s", err, s)
		}
		delete(m, "seconds")
		delete(m, "steps_per_sec")
		return m
	}
	ma, mb := strip(a), strip(b)
	ja, _ := json.Marshal(ma)
	jb, _ := json.Marshal(mb)
	if !bytes.Equal(ja, jb) {
		t.Fatalf("two runs differ:\n%s\n%s", ja, jb)
	}
	if ma["properties_hold"] != true {
		t.Fatalf("properties fail: %s", ja)
	}
}
