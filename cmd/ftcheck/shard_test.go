package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shardProcess runs this test binary as ftcheck (TestMain's
// FTCHECK_AS_MAIN) in its own OS process, as a scheduler runs a shard; it
// returns stdout and the exit status.
func shardProcess(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "FTCHECK_AS_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code == 2 {
		t.Logf("ftcheck %s: %s", strings.Join(args, " "), stderr.String())
	}
	return stdout.String(), code
}

// TestShardedCheckEqualsWhole: an ERA check split in 4 shards run as
// separate processes, merged, has the unsharded check's distinct-state
// and transition counts and verdicts, for a model that holds and for a mutant that fails
// (the merged counterexample as short as the unsharded one).
func TestShardedCheckEqualsWhole(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		model []string
		depth string
	}{
		{"holds", []string{"era", "--n", "3"}, "2"},
		{"mutant", []string{"era", "--n", "3", "--mutant", "no-up-to-new-parent"}, "2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var whole checkSummary
			out, wantCode := shardProcess(t, append(append([]string{"check"}, c.model...), "--json", "--quiet", "--workers", "1", "--out", dir)...)
			decodeOne(t, out, &whole)
			var files []string
			for k := range 4 {
				f := filepath.Join(dir, fmt.Sprintf("%s-%d.shard", c.name, k))
				args := append(append([]string{"check"}, c.model...), "--quiet", "--json", "--workers", "1", "--out", dir,
					"--shard", fmt.Sprintf("%d/4", k), "--split-depth", c.depth, "--result", f)
				if _, code := shardProcess(t, args...); code != 0 {
					t.Fatalf("shard %d: exit %d", k, code)
				}
				files = append(files, f)
			}
			var merged mergeSummary
			out, code := shardProcess(t, append([]string{"merge", "--json", "--out", dir}, files...)...)
			decodeOne(t, out, &merged)
			if code != wantCode || merged.Complete != whole.Complete || len(merged.Violations) != len(whole.Violations) {
				t.Fatalf("merge: exit %d complete=%v %d violations; unsharded: exit %d complete=%v %d violations",
					code, merged.Complete, len(merged.Violations), wantCode, whole.Complete, len(whole.Violations))
			}
			if len(whole.Violations) == 0 && (merged.States != whole.States || merged.Transitions != whole.Transitions) {
				t.Errorf("merge: %d distinct states, %d transitions; unsharded %d, %d", merged.States, merged.Transitions, whole.States, whole.Transitions)
			}
			for i, v := range whole.Violations {
				if mv := merged.Violations[i]; mv.Property != v.Property || mv.Steps != v.Steps {
					t.Errorf("merge: violation of %s in %d steps, unsharded %s in %d", mv.Property, mv.Steps, v.Property, v.Steps)
				}
			}
			if len(whole.Violations) > 0 {
				t.Logf("%s caught by %s in %d steps, merged from 4 shards", c.model[len(c.model)-1], merged.Violations[0].Property, merged.Violations[0].Steps)
			}
		})
	}
}

// TestShardedCampaignEqualsWhole: a small Table 1 campaign split in 4
// shards run as separate processes, merged, prints the unsharded
// campaign's figures (every key of --json but seconds).
func TestShardedCampaignEqualsWhole(t *testing.T) {
	dir := t.TempDir()
	campaign := []string{"simulate", "correction", "--table1", "--P", "128", "--runs", "12", "--seed", "7", "--quiet", "--out", dir}
	out, _ := shardProcess(t, append(campaign, "--json")...)
	var whole map[string]any
	decodeOne(t, out, &whole)
	var files []string
	for k := range 4 {
		f := filepath.Join(dir, fmt.Sprintf("t%d.shard", k))
		if _, code := shardProcess(t, append(campaign, "--shard", fmt.Sprintf("%d/4", k), "--result", f)...); code != 0 {
			t.Fatalf("shard %d: exit %d", k, code)
		}
		files = append(files, f)
	}
	out, _ = shardProcess(t, append([]string{"merge", "--json"}, files...)...)
	var merged map[string]any
	decodeOne(t, out, &merged)
	if merged["shards"] != 4.0 {
		t.Errorf("merge: shards %v, want 4", merged["shards"])
	}
	delete(merged, "shards")
	for _, doc := range []map[string]any{whole, merged} {
		delete(doc, "seconds")
	}
	a, _ := json.Marshal(whole)
	b, _ := json.Marshal(merged)
	if !bytes.Equal(a, b) || whole["table1"] == nil {
		t.Errorf("merged campaign differs from the unsharded one:\nmerged:    %s\nunsharded: %s", b, a)
	}
}

// TestShardedWalksEqualWhole: ERA's random walks split in 4 shards run as
// separate processes, merged, print the unsharded campaign's JSON (every key
// but the wall-clock seconds and steps_per_sec), with and without a
// violation. With the mutant the unsharded campaign stops at its lowest
// violating walk (57 of 200), the shards run every walk, and the merge
// stops its totals there too and saves the same counterexample.
func TestShardedWalksEqualWhole(t *testing.T) {
	for name, extra := range map[string][]string{
		"holds":    {"--n", "8", "--crashes", "2", "--walks", "40"},
		"violates": {"--n", "4", "--crashes", "2", "--crash-prob", "0.3", "--walks", "200", "--mutant", "up-not-remembered"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			campaign := append([]string{"simulate", "era", "--seed", "3", "--quiet"}, extra...)
			out, _ := shardProcess(t, append(campaign, "--json", "--out", filepath.Join(dir, "whole"))...)
			var whole map[string]any
			decodeOne(t, out, &whole)
			var files []string
			for k := range 4 {
				f := filepath.Join(dir, fmt.Sprintf("w%d.shard", k))
				if _, code := shardProcess(t, append(campaign, "--out", dir, "--shard", fmt.Sprintf("%d/4", k), "--result", f)...); code != 0 {
					t.Fatalf("shard %d: exit %d", k, code)
				}
				files = append(files, f)
			}
			out, _ = shardProcess(t, append([]string{"merge", "--json", "--out", filepath.Join(dir, "merged")}, files...)...)
			var merged map[string]any
			decodeOne(t, out, &merged)
			delete(merged, "shards")
			for _, doc := range []map[string]any{whole, merged} {
				delete(doc, "seconds")
				delete(doc, "steps_per_sec")
				if v, _ := doc["violations"].([]any); len(v) > 0 {
					ref := v[0].(map[string]any)
					b, err := os.ReadFile(ref["trace_file"].(string))
					if err != nil {
						t.Fatal(err)
					}
					ref["trace_file"] = string(b)
				}
			}
			a, _ := json.Marshal(whole)
			b, _ := json.Marshal(merged)
			if !bytes.Equal(a, b) {
				t.Errorf("merged walks differ from the unsharded campaign:\nmerged:    %s\nunsharded: %s", b, a)
			}
			if v, _ := whole["violations"].([]any); (name == "violates") != (len(v) == 1) || (name == "violates" && whole["walks"] != 58.0) {
				t.Errorf("unsharded campaign: violations %v after %v walks", whole["violations"], whole["walks"])
			}
		})
	}
}

// TestMergeRefusals: shards that are not exactly 0 … N−1 of one run are
// refused with exit 2.
func TestMergeRefusals(t *testing.T) {
	dir := t.TempDir()
	shard := func(name string, k, n int, extra ...string) string {
		f := filepath.Join(dir, name)
		args := append([]string{"simulate", "correction", "--P", "32", "--fault-rate", "0.05", "--runs", "8", "--quiet", "--out", dir,
			"--shard", fmt.Sprintf("%d/%d", k, n), "--result", f}, extra...)
		if _, code := shardProcess(t, args...); code != 0 {
			t.Fatalf("%s: exit %d", name, code)
		}
		return f
	}
	a0, a1 := shard("a0", 0, 2), shard("a1", 1, 2)
	seed := shard("seed", 1, 2, "--seed", "9")
	three := shard("three", 1, 3)
	check := filepath.Join(dir, "check")
	if _, code := shardProcess(t, "check", "era", "--n", "2", "--quiet", "--out", dir, "--shard", "1/2", "--result", check); code != 0 {
		t.Fatalf("check shard: exit %d", code)
	}
	b, err := os.ReadFile(a1)
	if err != nil || !bytes.Contains(b, []byte(`"interrupted":false`)) {
		t.Fatalf("%s: %v, or no interrupted key", a1, err)
	}
	interrupted := filepath.Join(dir, "interrupted")
	if err := os.WriteFile(interrupted, bytes.Replace(b, []byte(`"interrupted":false`), []byte(`"interrupted":true`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, code := shardProcess(t, "merge", a0, a1); code != 0 {
		t.Fatalf("merge of the two shards: exit %d", code)
	}
	for name, files := range map[string][]string{
		"missing":      {a0},
		"duplicate":    {a0, a1, a1},
		"other seed":   {a0, seed},
		"other count":  {a0, three},
		"interrupted":  {a0, interrupted},
		"other kind":   {a0, check},
		"not a result": {a0, filepath.Join("testdata", "..", "shard_test.go")},
	} {
		if _, code := shardProcess(t, append([]string{"merge"}, files...)...); code != 2 {
			t.Errorf("%s: exit %d, want 2", name, code)
		}
	}
	for name, args := range map[string][]string{
		"no result":    {"check", "era", "--n", "2", "--shard", "0/2"},
		"bad shard":    {"check", "era", "--n", "2", "--shard", "2/2", "--result", check},
		"dfs":          {"check", "era", "--n", "2", "--shard", "0/2", "--result", check, "--dfs"},
		"result alone": {"check", "era", "--n", "2", "--result", check},
		"not by run":   {"simulate", "paxos", "--walks", "2", "--shard", "0/2", "--result", check},
		"era scenario": {"simulate", "era", "--n", "4", "--scenario", "ulfm-bench", "--walks", "2", "--shard", "0/2", "--result", check},
	} {
		if _, code := shardProcess(t, append(args, "--quiet", "--out", dir)...); code != 2 {
			t.Errorf("%s: exit %d, want 2", name, code)
		}
	}
}
