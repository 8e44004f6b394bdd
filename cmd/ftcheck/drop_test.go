package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckDropAbsorbed: correction's --drop-absorbed keeps the verdict
// with fewer states, is recorded in a counterexample's trace so that replay
// rebuilds the dropping model and reproduces the violation, and a model
// without it (era: its nodes declare no absorbed messages) refuses the flag
// with exit status 2.
func TestCheckDropAbsorbed(t *testing.T) {
	dir := t.TempDir()
	type summary struct {
		States     int64 `json:"states"`
		Complete   bool  `json:"complete"`
		Violations []any `json:"violations"`
	}
	args := []string{"check", "correction", "--P", "3", "--faults", "1", "--dfs", "--por", "--json", "--quiet", "--out", dir}
	var plain, drop summary
	code, out, _ := ftcheck(t, args...)
	if code != 0 || json.Unmarshal([]byte(out), &plain) != nil {
		t.Fatalf("%v: exit %d: %s", args, code, out)
	}
	code, out, _ = ftcheck(t, append(args, "--drop-absorbed")...)
	if code != 0 || json.Unmarshal([]byte(out), &drop) != nil {
		t.Fatalf("%v --drop-absorbed: exit %d: %s", args, code, out)
	}
	if !plain.Complete || !drop.Complete || drop.States >= plain.States || len(plain.Violations)+len(drop.Violations) != 0 {
		t.Fatalf("plain %+v, dropping %+v", plain, drop)
	}
	code, out, _ = ftcheck(t, "check", "correction", "--P", "3", "--mutant", "redeliver-on-correction", "--drop-absorbed",
		"--dfs", "--quiet", "--out", dir)
	if code != 1 {
		t.Fatalf("mutant with --drop-absorbed: exit %d: %s", code, out)
	}
	traces, _ := filepath.Glob(filepath.Join(dir, "correction-*redeliver-on-correction.json"))
	if len(traces) == 0 {
		t.Fatalf("no trace in %s", dir)
	}
	b, err := os.ReadFile(traces[0])
	if err != nil || !strings.Contains(string(b), `"drop-absorbed": "true"`) {
		t.Fatalf("the trace does not record --drop-absorbed (%v)", err)
	}
	code, out, _ = ftcheck(t, "replay", traces[0])
	if !strings.Contains(out, "replay reproduces the violation") {
		t.Fatalf("replay: exit %d: %s", code, out)
	}
	code, _, errOut := ftcheck(t, "check", "era", "--drop-absorbed", "--quiet", "--out", dir)
	if code != 2 || !strings.Contains(errOut, "drop-absorbed") {
		t.Fatalf("era --drop-absorbed: exit %d: %s", code, errOut)
	}
}
