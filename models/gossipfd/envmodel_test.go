package gossipfd

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// TestEnvBoundedDelay: under checker/env's bounded delay (Δ = 1 tick,
// T_gossip = 4 ticks, every order of a tick's steps, crashes at any step),
// BRR at n = 4 with two crashes declares a live host (§5.1's example, no
// ping phase), while DBRR at the paper's T_cleanup with the ping phase
// keeps both properties over its whole bounded run.
func TestEnvBoundedDelay(t *testing.T) {
	m, err := NewEnvModel(EnvParams{Node: fd.Config{N: 4, Variant: fd.BRR, TGossip: 4, Cleanup: 4, MaxRounds: 8}, Crashes: 2, Delta: 1, DetectBound: 7})
	if err != nil {
		t.Fatal(err)
	}
	r := checker.Search[*env.World](m, checker.Options{})
	if len(r.Violations) == 0 || r.Violations[0].Violation.Property != "accuracy" && r.Violations[0].Violation.Property != "no-false-suspicion" {
		t.Errorf("BRR n=4 F=2: %d violations", len(r.Violations))
	}
	m, err = NewEnvModel(EnvParams{Node: fd.Config{N: 4, Variant: fd.DBRR, TGossip: 4, Cleanup: 6, Ping: true, PingTimeout: 3, MaxRounds: 12}, Crashes: 2, Delta: 1, DetectBound: 11})
	if err != nil {
		t.Fatal(err)
	}
	r = checker.Search[*env.World](m, checker.Options{})
	if len(r.Violations) != 0 || !r.Complete {
		t.Errorf("DBRR n=4 F=2: %d violations, complete %v", len(r.Violations), r.Complete)
	}
	t.Logf("DBRR n=4 F=2 Δ=1, 12 rounds: %d states", r.States)
	if _, err := NewEnvModel(EnvParams{Node: fd.Config{N: 4, Variant: fd.BRR, TGossip: 4, Cleanup: 4}, Delta: 1, DetectBound: 1}); err == nil {
		t.Error("an unbounded run accepted")
	}
	if _, err := NewEnvModel(EnvParams{Node: fd.Config{N: 4, Variant: fd.BRR, TGossip: 4, Cleanup: 4, Ping: true, PingTimeout: 2, MaxRounds: 4}, Delta: 1, DetectBound: 1}); err == nil {
		t.Error("a ping timeout of 2Δ accepted")
	}
	if _, err := NewEnvModel(EnvParams{Node: fd.Config{N: 4, Variant: fd.BRR, TGossip: 4, Cleanup: 4, MaxRounds: 4}, Delta: 1}); err == nil {
		t.Error("a completeness bound of 0 rounds accepted")
	}
}

// TestEnvCompletenessTight: under bounded delay (Δ = 1, T_gossip = 4 ticks,
// ping timeout 3), DBRR at n = 4 with the paper's T_cleanup (6 rounds)
// and one crash declares the crashed host at every live host within 9
// rounds of its last one, and not always within 8: the round model's
// tight bound (TestRoundCompletenessTight). The counts are the ones
// docs/gossipfd.md quotes.
func TestEnvCompletenessTight(t *testing.T) {
	const base = "--timing bounded --variant dbrr --n 4 --crashes 1 --max-rounds 12 --detect-bound "
	res := build(t, strings.Fields(base+"9")...).BFS(checker.Options{Workers: 1})
	modeltest.PinCounts(t, base+"9", res, "", 10585, 17150, 150)
	res = build(t, strings.Fields(base+"8")...).BFS(checker.Options{Workers: 1})
	modeltest.PinCounts(t, base+"8", res, "completeness", 5768, 0, 0)
	if len(res.Violations) != 1 || len(res.Violations[0].Steps) != 95 {
		t.Errorf("B = 8: %d violations, want one of 95 steps", len(res.Violations))
	}
}

// TestRoundCompletenessTight: the round model gives the same tight bound,
// 9 rounds, for DBRR n = 4, one crash, T_cleanup 6.
func TestRoundCompletenessTight(t *testing.T) {
	v, res := verdicts(build(t, "--variant", "dbrr", "--n", "4", "--crashes", "1", "--detect-bound", "9"), false)
	if len(v) != 0 || !res.Complete {
		t.Errorf("B = 9: %v", v)
	}
	if v, _ := verdicts(build(t, "--variant", "dbrr", "--n", "4", "--crashes", "1", "--detect-bound", "8"), false); v["completeness"] != 10 || len(v) != 1 {
		t.Errorf("B = 8: %v, want completeness in 10 steps", v)
	}
}

// TestEnvMutantsCaught: under bounded delay, each property of the model
// is the first one a mutant violates, with the shortest counterexample's
// length, at bounds where the correct detector keeps it (the correct
// detector holds every property at all four). Accuracy implies
// no-false-suspicion (a declaration is a suspicion), so it can at best tie
// with it: without the ping phase both fail at the same step, and
// accuracy, checked first, is reported.
func TestEnvMutantsCaught(t *testing.T) {
	caught := map[string]bool{}
	for _, c := range []struct {
		args, mutant, prop string
		steps              int
	}{
		{"--variant dbrr --n 4 --crashes 1 --cleanup 3 --ping=false --max-rounds 10 --detect-bound 9", "cleanup-ge", "accuracy", 27},
		{"--variant brr --n 4 --crashes 1 --max-rounds 8 --detect-bound 7", "brr-offset-2r", "no-false-suspicion", 41},
		{"--variant dbrr --n 4 --crashes 1 --max-rounds 12 --detect-bound 9", "never-suspect", "completeness", 90},
		{"--variant dbrr --n 4 --crashes 1 --max-rounds 12 --detect-bound 9", "merge-last-received", "completeness", 103},
	} {
		args := strings.Fields("--timing bounded " + c.args)
		if v, res := verdicts(build(t, args...), false); len(v) != 0 || !res.Complete {
			t.Errorf("%s: the correct detector violates %v", c.args, v)
		}
		modeltest.MustCatch(t, build(t, append(args, "--mutant", c.mutant)...), c.prop, c.steps)
		caught[c.prop] = true
	}
	for _, p := range build(t, "--timing", "bounded").Properties() {
		if p.Name == env.PropDeliveryWindow || p.Name == env.PropTimerDeadline {
			continue // the environment's timing rules: TestTimingMutantsCaught
		}
		if !caught[p.Name] {
			t.Errorf("no mutant is caught first by %s under bounded delay", p.Name)
		}
	}
}

// TestEnvEventualCompleteness: with --liveness, DBRR n = 4, one crash,
// T_cleanup 6: strong completeness holds over lassos and the checker
// reports the worst detection latency, 39 ticks (< 10 rounds of 4 ticks:
// within the tight bound of 9 rounds after the crashed host's last round,
// which can end up to one round after it); never-suspect violates it at a
// quiescent world.
func TestEnvEventualCompleteness(t *testing.T) {
	const args = "--timing bounded --variant dbrr --n 4 --crashes 1 --max-rounds 12 --detect-bound 9 --liveness"
	res := build(t, strings.Fields(args)...).BFS(checker.Options{})
	if len(res.Violations) != 0 || !res.Complete || len(res.Bounds) != 1 {
		t.Fatalf("%s: %d violations, complete %v, bounds %v", args, len(res.Violations), res.Complete, res.Bounds)
	}
	if b := res.Bounds[0]; b.Property != "completeness-eventually" || b.Time != 39 {
		t.Errorf("%s: bound %v, want 39 ticks", args, b)
	}
	r := build(t, strings.Fields(args+" --mutant never-suspect")...)
	res = r.BFS(checker.Options{Properties: []string{"completeness-eventually"}})
	if len(res.Violations) != 1 || res.Violations[0].Violation.Property != "completeness-eventually" || len(res.Violations[0].Steps) != 113 {
		t.Errorf("never-suspect: %d violations", len(res.Violations))
	}
}
