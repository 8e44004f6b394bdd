package modeltest

import (
	"os"
	"testing"
)

// Golden fails t unless the committed file holds exactly got (a generated
// artefact such as a Go run written as a Quint test); with the environment
// variable env set to 1 it first rewrites file with got. The failure says
// how to rewrite it.
func Golden(t testing.TB, file, got, env string) {
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
		t.Fatalf("%s differs from what the Go code gives now: rewrite it with %s=1 (and rerun what reads it)", file, env)
	}
}
