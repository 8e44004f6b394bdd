package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckForgetCrashed: --forget-crashed keeps the verdict with fewer
// states (era, correction), is recorded in a counterexample's trace so
// that replay rebuilds the forgetting model and reproduces the violation,
// and a model without Forget (twophase, not a message-passing model)
// refuses it with exit status 2.
func TestCheckForgetCrashed(t *testing.T) {
	dir := t.TempDir()
	type summary struct {
		States     int64 `json:"states"`
		Complete   bool  `json:"complete"`
		Violations []any `json:"violations"`
	}
	for _, args := range [][]string{
		{"era", "--n", "3", "--crashes", "2", "--dfs"},
		{"correction", "--P", "3", "--timing", "rounds", "--faults", "2", "--dfs", "--por"},
	} {
		var plain, forget summary
		code, out, _ := ftcheck(t, append(append([]string{"check"}, args...), "--json", "--quiet", "--out", dir)...)
		if code != 0 || json.Unmarshal([]byte(out), &plain) != nil {
			t.Fatalf("%v: exit %d: %s", args, code, out)
		}
		code, out, _ = ftcheck(t, append(append([]string{"check"}, args...), "--forget-crashed", "--json", "--quiet", "--out", dir)...)
		if code != 0 || json.Unmarshal([]byte(out), &forget) != nil {
			t.Fatalf("%v --forget-crashed: exit %d: %s", args, code, out)
		}
		if !plain.Complete || !forget.Complete || forget.States >= plain.States || len(plain.Violations)+len(forget.Violations) != 0 {
			t.Fatalf("%v: plain %+v, forgetting %+v", args, plain, forget)
		}
	}
	code, out, _ := ftcheck(t, "check", "era", "--n", "4", "--crashes", "2", "--forget-crashed", "--mutant", "early-root-decision",
		"--dfs", "--quiet", "--out", dir)
	if code != 1 {
		t.Fatalf("mutant with --forget-crashed: exit %d: %s", code, out)
	}
	traces, _ := filepath.Glob(filepath.Join(dir, "era-*early-root-decision.json"))
	if len(traces) == 0 {
		t.Fatalf("no trace in %s", dir)
	}
	b, err := os.ReadFile(traces[0])
	if err != nil || !strings.Contains(string(b), `"forget-crashed": "true"`) {
		t.Fatalf("the trace does not record --forget-crashed (%v)", err)
	}
	code, out, _ = ftcheck(t, "replay", traces[0])
	if !strings.Contains(out, "replay reproduces the violation") {
		t.Fatalf("replay: exit %d: %s", code, out)
	}
	code, _, errOut := ftcheck(t, "check", "twophase", "--forget-crashed", "--quiet", "--out", dir)
	if code != 2 || !strings.Contains(errOut, "twophase does not forget crashed processes") {
		t.Fatalf("twophase --forget-crashed: exit %d: %s", code, errOut)
	}
}
