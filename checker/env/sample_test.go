package env

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// Every sampled action is enabled, and Sample reports false exactly in
// quiescent states.
func TestSampleReturnsEnabledActions(t *testing.T) {
	cfg := floodConfig(3)
	cfg.Loss, cfg.CrashProb, cfg.Fail = LossOnCrash, 0.3, []core.Rank{2}
	m := mustNew(t, cfg)
	r := rand.New(rand.NewPCG(1, 2))
	var buf []checker.Action
	explore(t, m, 1e6, func(s *World, as []checker.Action) {
		for range 5 {
			a, ok := m.Sample(s, r, buf)
			if ok != !m.Quiescent(s) {
				t.Fatalf("Sample ok=%v in a state with Quiescent=%v", ok, m.Quiescent(s))
			}
			if ok && !has(as, a) {
				t.Fatalf("Sample returned %v, not among %v", a, as)
			}
		}
	})
}

// Without crashes, Sample is uniform over the enabled actions.
func TestSampleUniform(t *testing.T) {
	cfg := floodConfig(40)
	cfg.Crashes = 3
	m := mustNew(t, cfg)
	s := run(t, m, m.Init()[0], act(Call, 3, 0, 0), act(Call, 39, 0, 0), act(Crash, 7, 0, 0), act(Crash, 20, 0, 0))
	as := m.Actions(s, nil)
	count := map[checker.Action]int{}
	r := rand.New(rand.NewPCG(3, 4))
	const draws = 200000
	for range draws {
		a, ok := m.Sample(s, r, nil)
		if !ok {
			t.Fatal("no action")
		}
		count[a]++
	}
	var k int
	for _, a := range as {
		if a.Kind != Crash {
			k++
		}
	}
	if len(count) != k {
		t.Fatalf("sampled %d distinct actions, want the %d non-crash ones", len(count), k)
	}
	want := float64(draws) / float64(k)
	for a, c := range count {
		if math.Abs(float64(c)-want) > 6*math.Sqrt(want) {
			t.Errorf("%v drawn %d times, want about %.0f", a, c, want)
		}
	}
}

// Walks crash every Fail rank, spend at most the budget, and end quiescent.
func TestSampleWalkCrashes(t *testing.T) {
	cfg := floodConfig(30)
	cfg.Crashes, cfg.CrashProb, cfg.Fail, cfg.Loss = 2, 0.05, []core.Rank{0, 4, 16}, LossOnCrash
	m := mustNew(t, cfg)
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 9))
		s := m.Init()[0]
		for steps := 0; ; steps++ {
			a, ok := m.Sample(s, r, nil)
			if !ok {
				break
			}
			s = run(t, m, s, a)
			if steps > 1e5 {
				t.Fatal("walk does not end")
			}
		}
		if !m.Quiescent(s) {
			t.Fatal("walk ended in a non-quiescent state")
		}
		for _, f := range cfg.Fail {
			if !s.Crashed(f) {
				t.Errorf("seed %d: Fail rank %v alive at the end", seed, f)
			}
		}
		if s.NumCrashed() > 5 {
			t.Errorf("seed %d: %d crashed", seed, s.NumCrashed())
		}
		for p := range core.Rank(30) {
			if !s.Crashed(p) && len(s.History(p)) != 2 {
				t.Errorf("seed %d: live %v did not decide and return: %v", seed, p, s.History(p))
			}
		}
	}
}
