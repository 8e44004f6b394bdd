package diagnosis

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	"github.com/ftkernel/ftkernel/registry"
)

// TestNetHolds: VCube over a network holds accuracy, completeness within (log2 n)² + 1 rounds of
// the round of a crash (with three crashes at n = 4, within the tighter (log2 4)² = 4), the tester
// rule and the timing rules, over every order of every tick's steps and every crash placement:
// n = 4 with one crash and with three (every node but one), and n = 2 with one.
func TestNetHolds(t *testing.T) {
	for _, args := range [][]string{
		{"--n", "2", "--crashes", "1"},
		{"--n", "4", "--crashes", "1"},
		{"--n", "4", "--crashes", "3", "--detect-bound", "4"},
	} {
		r := modeltest.Build(t, VCube, append([]string{"--timing", "bounded"}, args...)...)
		res := r.BFS(checker.Options{})
		if res.Err != nil || len(res.Violations) > 0 || !res.Complete {
			t.Fatalf("%v: err %v, %d violations, complete=%v", args, res.Err, len(res.Violations), res.Complete)
		}
		t.Logf("%v: %d states, depth %d", args, res.States, res.Depth)
	}
}

// TestNetCompletenessBoundTight: the smallest completeness bounds of docs/diagnosis.md are
// tight: one round less fails, each time for a node dead from the start. At n = 4 with three
// crashes the last live node needs (log2 4)² = 4 rounds; at n = 8 with one crash, p4 tests p0
// only in rounds with s = 3, so it learns of p0 at the end of round 3 at the earliest (log2 8).
func TestNetCompletenessBoundTight(t *testing.T) {
	for _, tc := range []struct {
		n, crashes, bound string
		steps             int
	}{
		{"4", "3", "3", 20},
		{"8", "1", "2", 48},
	} {
		r := modeltest.Build(t, VCube, "--timing", "bounded", "--n", tc.n, "--crashes", tc.crashes, "--detect-bound", tc.bound)
		modeltest.MustCatch(t, r, "completeness", tc.steps)
	}
}

// TestNetMutantsCaught: each mutant of the network model is caught at n = 4 with one crash, by
// the named property, with a shortest counterexample of the stated length that replays.
func TestNetMutantsCaught(t *testing.T) {
	for _, tc := range []struct {
		mutant, property string
		steps            int
	}{
		// p0's Start: with every node believed fault-free, the rule read on c(0, 1) = {p1}
		// finds p1 first, not p0, so p0 tests nobody; the rule gives p1.
		{"tester-own-cluster", "tester-rule", 1},
		{"cluster-no-xor", "tester-rule", 1},
		// p0 crashes; p2 and p3 test each other at tick 0 and answer at tick 1; p2's deadline,
		// at tick 2Δ = 2, fires before p3's REPLY, due in that tick, arrives: p2 tests the live
		// p3 faulty.
		{"round-2delta", "accuracy", 9},
		// A crashed node is never tested faulty: a live node passes the bound round.
		{"silence-fault-free", "completeness", 52},
	} {
		t.Run(tc.mutant, func(t *testing.T) {
			r := modeltest.Build(t, VCube, "--timing", "bounded", "--n", "4", "--crashes", "1", "--mutant", tc.mutant)
			modeltest.MustCatch(t, r, tc.property, tc.steps)
		})
	}
}

// TestNetTimestampGEIsEquivalent: with crashes only, as in the round model, two equal timestamps
// are equal entries, so the ≥ merge reaches exactly the correct model's states.
func TestNetTimestampGEIsEquivalent(t *testing.T) {
	var states [2]int64
	for k, mut := range []string{"", "timestamp-ge"} {
		res := modeltest.Build(t, VCube, "--timing", "bounded", "--n", "4", "--crashes", "2", "--mutant", mut).BFS(checker.Options{})
		if res.Err != nil || len(res.Violations) > 0 {
			t.Fatalf("mutant %q: err %v, violations %d", mut, res.Err, len(res.Violations))
		}
		states[k] = res.States
	}
	if states[0] != states[1] {
		t.Fatalf("states %d (correct) vs %d (timestamp-ge): the mutant is no longer equivalent; give it a property", states[0], states[1])
	}
}

// TestNetEnvSound: the network model's worlds keep checker/env's contract (distinct worlds,
// distinct encodings and fingerprints; Quiescent agrees with Actions).
func TestNetEnvSound(t *testing.T) {
	modeltest.CheckEnv(t, VCube, "--timing bounded --n 4 --crashes 1", envtest.Plan{MaxStates: 20000, Seed: 1, Walks: 50, Depth: 200})
}

// TestNetBadFlags: the round model's flags and out-of-range sizes are refused.
func TestNetBadFlags(t *testing.T) {
	p, err := registry.Lookup(VCube)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--timing", "bounded", "--events", "1"},
		{"--timing", "bounded", "--faulty-max", "1"},
		{"--timing", "bounded", "--n", "32"},
		{"--timing", "bounded", "--n", "6"},
		{"--timing", "bounded", "--delta", "0"},
		{"--timing", "bounded", "--crashes", "8"},
		{"--timing", "lockstep"},
		{"--mutant", "round-2delta"}, // a mutant of the network model only
	} {
		if _, err := p.Build(args); err == nil {
			t.Errorf("%v: built", args)
		}
	}
}
