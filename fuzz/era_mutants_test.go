package fuzz

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ftkernel/ftkernel/internal/mutant"
)

// TestMutantCrashers replays the schedules the fuzzer found against
// mutants, kept under testdata/mutants/<mutant>/ in corpus format: each
// must still violate a property under its mutant (the fuzz target can
// fail), and must pass on the correct ERA (they are schedules, not bugs).
func TestMutantCrashers(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("testdata", "mutants"))
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for _, d := range dirs {
		mut := mutant.Name(d.Name())
		files, err := filepath.Glob(filepath.Join("testdata", "mutants", d.Name(), "*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := readCorpusFile(f)
			if err != nil {
				t.Fatal(err)
			}
			count++
			m, tr, err := decodeSchedule(data, mut)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := checkTrace(m, tr); ok {
				t.Errorf("%s: no longer violates a property under mutant %s", f, mut)
			}
			runAndCheck(t, data, mutant.None)
		}
	}
	if count == 0 {
		t.Fatal("no mutant crasher found under testdata/mutants")
	}
}
