package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reductionFlagCase is what checkReductionFlag runs for a reduction flag
// (--forget-crashed, --drop-absorbed).
type reductionFlagCase struct {
	flag string
	// fewer: check arguments (after "check") whose run with the flag must
	// keep a complete, violation-free verdict with fewer states.
	fewer [][]string
	// mutant: check arguments of a run with the flag that must find a
	// violation, and the glob of its trace in the output directory.
	mutant    []string
	traceGlob string
	// refuse: check arguments of a model without the reduction, which must
	// exit 2 with an error containing refuseMsg.
	refuse    []string
	refuseMsg string
}

// checkReductionFlag: the flag keeps the verdict with fewer states, is
// recorded in a counterexample's trace so that replay rebuilds the reduced
// model and reproduces the violation, and a model without the reduction
// refuses it with exit status 2.
func checkReductionFlag(t *testing.T, c reductionFlagCase) {
	t.Helper()
	dir := t.TempDir()
	type summary struct {
		States     int64 `json:"states"`
		Complete   bool  `json:"complete"`
		Violations []any `json:"violations"`
	}
	for _, args := range c.fewer {
		var plain, reduced summary
		code, out, _ := ftcheck(t, append(append([]string{"check"}, args...), "--json", "--quiet", "--out", dir)...)
		if code != 0 || json.Unmarshal([]byte(out), &plain) != nil {
			t.Fatalf("%v: exit %d: %s", args, code, out)
		}
		code, out, _ = ftcheck(t, append(append([]string{"check"}, args...), c.flag, "--json", "--quiet", "--out", dir)...)
		if code != 0 || json.Unmarshal([]byte(out), &reduced) != nil {
			t.Fatalf("%v %s: exit %d: %s", args, c.flag, code, out)
		}
		if !plain.Complete || !reduced.Complete || reduced.States >= plain.States || len(plain.Violations)+len(reduced.Violations) != 0 {
			t.Fatalf("%v: plain %+v, with %s %+v", args, plain, c.flag, reduced)
		}
	}
	code, out, _ := ftcheck(t, append(append([]string{"check"}, c.mutant...), c.flag, "--quiet", "--out", dir)...)
	if code != 1 {
		t.Fatalf("%v %s: exit %d: %s", c.mutant, c.flag, code, out)
	}
	traces, _ := filepath.Glob(filepath.Join(dir, c.traceGlob))
	if len(traces) == 0 {
		t.Fatalf("no trace %s in %s", c.traceGlob, dir)
	}
	b, err := os.ReadFile(traces[0])
	if err != nil || !strings.Contains(string(b), `"`+strings.TrimPrefix(c.flag, "--")+`": "true"`) {
		t.Fatalf("the trace does not record %s (%v)", c.flag, err)
	}
	code, out, _ = ftcheck(t, "replay", traces[0])
	if !strings.Contains(out, "replay reproduces the violation") {
		t.Fatalf("replay: exit %d: %s", code, out)
	}
	code, _, errOut := ftcheck(t, append(append([]string{"check"}, c.refuse...), c.flag, "--quiet", "--out", dir)...)
	if code != 2 || !strings.Contains(errOut, c.refuseMsg) {
		t.Fatalf("%v %s: exit %d: %s", c.refuse, c.flag, code, errOut)
	}
}
