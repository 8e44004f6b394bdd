package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckPOR: --por reports por: true with the skipped transitions (and
// the same states as without), --mutants passes it on, and a model without
// an independence relation says why it was not reduced.
func TestCheckPOR(t *testing.T) {
	dir := t.TempDir()
	var plain, por struct {
		States      int64  `json:"states"`
		Transitions int64  `json:"transitions"`
		POR         bool   `json:"por"`
		Slept       int64  `json:"slept"`
		PORNote     string `json:"por_note"`
	}
	code, out, _ := ftcheck(t, "check", "era", "--n", "3", "--crashes", "1", "--json", "--quiet", "--out", dir)
	if code != 0 || json.Unmarshal([]byte(out), &plain) != nil {
		t.Fatalf("exit %d: %s", code, out)
	}
	code, out, _ = ftcheck(t, "check", "era", "--n", "3", "--crashes", "1", "--por", "--json", "--quiet", "--out", dir)
	if code != 0 || json.Unmarshal([]byte(out), &por) != nil {
		t.Fatalf("--por: exit %d: %s", code, out)
	}
	if !por.POR || plain.POR || por.States != plain.States || por.Transitions+por.Slept != plain.Transitions || por.Slept == 0 {
		t.Fatalf("plain %+v, por %+v", plain, por)
	}
	code, out, _ = ftcheck(t, "check", "twophase", "--rm", "2", "--por", "--json", "--quiet", "--out", dir)
	if code != 0 || json.Unmarshal([]byte(out), &por) != nil || por.POR || por.PORNote == "" {
		t.Fatalf("twophase --por: exit %d: %s", code, out)
	}
	// Without correction no mutant can differ from the protocol: they
	// survive, which fails the run (exit 1).
	code, out, _ = ftcheck(t, "check", "correction", "--P", "3", "--correction", "none", "--por", "--mutants", "--quiet", "--out", dir)
	if code != 1 || !strings.Contains(out, "por: true") || !strings.Contains(out, "mutants at the same bounds") || !strings.Contains(out, "SURVIVED") {
		t.Fatalf("--por --mutants: exit %d: %s", code, out)
	}
}
