package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestGossipfdSymmetryRefusedForRandom: the random variant's partner plan
// names hosts, so rotation is not a symmetry: --symmetry is a usage error
// (exit 2, one line naming --symmetry) in both timings, and accepted for
// the deterministic variants (the search completes, exit 0).
func TestGossipfdSymmetryRefusedForRandom(t *testing.T) {
	for _, timing := range []string{"rounds", "bounded"} {
		code, out, errs := ftcheck(t, "check", "gossipfd", "--timing", timing, "--variant", "random", "--n", "4", "--cleanup", "12", "--symmetry", "--quiet")
		if code != 2 || out != "" || !strings.Contains(errs, "--symmetry") || strings.Count(errs, "\n") != 1 {
			t.Errorf("--timing %s random --symmetry: exit %d, stdout %q, stderr %q; want 2 and one line naming --symmetry", timing, code, out, errs)
		}
		code, out, errs = ftcheck(t, "check", "gossipfd", "--timing", timing, "--variant", "dbrr", "--n", "4", "--crashes", "1", "--max-rounds", "6", "--symmetry", "--json", "--out", t.TempDir())
		var sum struct {
			Complete bool `json:"complete"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &sum) != nil || !sum.Complete {
			t.Errorf("--timing %s dbrr --symmetry: exit %d, stdout %q, stderr %q", timing, code, out, errs)
		}
	}
}
