package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records a failure instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatal(...any)          { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestCheck(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(file, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Check(r, file, "a\n", "GOLDEN_TEST_WRITE")
	if r.failed {
		t.Fatal("equal text failed")
	}
	Check(r, file, "b\n", "GOLDEN_TEST_WRITE")
	if !r.failed {
		t.Fatal("different text passed")
	}
	t.Setenv("GOLDEN_TEST_WRITE", "1")
	r = &recorder{TB: t}
	Check(r, file, "b\n", "GOLDEN_TEST_WRITE")
	if b, _ := os.ReadFile(file); r.failed || string(b) != "b\n" {
		t.Fatalf("rewrite: failed %v, file %q", r.failed, b)
	}
}
