// Package golden compares generated text with a committed file, for tests
// that keep a generated artefact in the tree (a Quint replay of a Go run, a
// figure, a transcript): the test fails when the file differs from what the
// code gives now, and rewrites it when asked.
package golden

import (
	"os"
	"testing"
)

// Check fails t unless file holds exactly got. With the environment
// variable env set to 1 it first writes got to file. The failure names
// file and env, so that the reader knows how to regenerate it.
func Check(t testing.TB, file, got, env string) {
	t.Helper()
	if os.Getenv(env) == "1" {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Fatalf("%s differs from what the code gives now: rewrite it with %s=1 (and rerun what checks it)", file, env)
	}
}
