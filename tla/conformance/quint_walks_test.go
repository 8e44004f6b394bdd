package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// quintTestWalks writes src, the generated module named module that
// replays Go walks in spec, into dir and runs `quint test` on it: every
// test of passed must pass, every test of failed (the walks of Go mutants)
// must fail. It returns the assertion and error lines of quint's output
// (each on a new line), the spec's reasons for the failures, and how long
// quint took.
func quintTestWalks(t testing.TB, quint, spec, dir, module, src string, passed, failed []string) (string, time.Duration) {
	t.Helper()
	file := module + ".qnt"
	if err := os.WriteFile(filepath.Join(dir, file), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	out, _ := quintTest(t, spec, quint, dir, file, module)
	for _, name := range passed {
		if !strings.Contains(out, "ok "+name+" passed") {
			t.Fatalf("%s: the Go walk does not replay in the spec (generated %s):\n%s", name, filepath.Join(dir, file), out)
		}
	}
	for _, name := range failed {
		if !strings.Contains(out, name+" failed") {
			t.Fatalf("the walk of a Go mutant (%s) replays in the spec (generated %s):\n%s", name, filepath.Join(dir, file), out)
		}
	}
	why := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "Error [") || strings.Contains(l, "assert(") {
			why += "\n" + strings.TrimSpace(l)
		}
	}
	return why, time.Since(t0)
}

// requireCommittedITF checks that the committed ITF file at path holds
// n states, the i-th decoded with fromSpec equal to goState(i) (0: the
// initial state, i: the state after Go step i).
func requireCommittedITF[S any](t testing.TB, path string, n int, goState func(i int) S, fromSpec func(map[string]any) (S, error)) {
	t.Helper()
	itf, err := readITF(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(itf.States) != n {
		t.Fatalf("committed ITF has %d states, the Go trace %d steps", len(itf.States), n-1)
	}
	for i, st := range itf.States {
		spec, err := fromSpec(st)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(spec, goState(i)); d != "" {
			t.Fatalf("state %d differs (-committed +go):\n%s", i, d)
		}
	}
}

// requireCurrentModule checks that the committed replay module at path
// is want, the translation of the committed Go walk.
func requireCurrentModule(t testing.TB, path, want, stale string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(src) != want {
		t.Fatal(stale)
	}
}
