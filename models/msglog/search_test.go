package msglog

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/internal/mutant"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// TestSearchModesAgree: breadth first with the frontier as encodings (the
// Codec), breadth first with whole states, and depth first (fingerprints
// only, how docs/msglog.md's largest searches run) find the same distinct
// states and the same verdict: the gather program with delayed
// acknowledgements completes with every property holding, and its
// ambiguity-C mutant violates determinants-kept in each mode.
func TestSearchModesAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive searches")
	}
	for _, mu := range []string{"", string(ml.MutantRemoveLiveLastID)} {
		p := Params{Program: "gather", Procs: 3, Logger: el.Centralized, Crashes: 1, Recoveries: 1, DelayedAck: true, Mutant: mutant.Name(mu)}
		var states []int64
		for _, opt := range []checker.Options{{}, {WholeStates: true}, {Mode: checker.DepthFirst}} {
			m, err := NewModel(p)
			if err != nil {
				t.Fatal(err)
			}
			opt.MaxMemory = 1 << 30
			res := checker.Search(m, opt)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			switch {
			case mu == "" && (!res.Complete || len(res.Violations) > 0):
				t.Fatalf("%+v: complete=%v, %d violations", opt, res.Complete, len(res.Violations))
			case mu != "" && (len(res.Violations) == 0 || res.Violations[0].Violation.Property != DetsKept):
				t.Fatalf("%s %+v: no determinants-kept violation (%d states)", mu, opt, res.States)
			}
			if opt.Mode == checker.BreadthFirst && opt.WholeStates == res.Compact {
				t.Fatalf("%+v: compact frontier %v", opt, res.Compact)
			}
			states = append(states, res.States)
		}
		if mu == "" && (states[0] != states[1] || states[1] != states[2]) {
			t.Fatalf("distinct states: compact BFS %d, whole-state BFS %d, DFS %d", states[0], states[1], states[2])
		}
		t.Logf("%q: distinct states (compact BFS, whole BFS, DFS) %v", mu, states)
	}
}
