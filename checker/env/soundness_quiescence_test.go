package env_test

import (
	"sort"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
)

// toyModels builds every SoundnessToys model, in name order.
func toyModels(t *testing.T) ([]string, map[string]*env.Model) {
	t.Helper()
	cfgs := env.SoundnessToys()
	names := make([]string, 0, len(cfgs))
	ms := map[string]*env.Model{}
	for name, cfg := range cfgs {
		m, err := env.New(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		names, ms[name] = append(names, name), m
	}
	sort.Strings(names)
	return names, ms
}

// TestQuiescentAgreesWithActions: on every world of every toy model
// (exhaustively) and along random walks, Quiescent holds exactly when
// every enabled action is Ignorable (a budget crash). It fails on an env
// whose Quiescent forgets a kind of pending work (planted: Quiescent not
// counting armed timers, or Actions dropping the Detect actions of one
// rank: a world with work left is then taken as the end of the run, or a
// run ends where no quiescence property looks) and on a model whose
// Ignorable declares too much or too little.
func TestQuiescentAgreesWithActions(t *testing.T) {
	names, ms := toyModels(t)
	for _, name := range names {
		m := ms[name]
		quiet, n := 0, 0
		check := func(w *env.World) error {
			n++
			if m.Quiescent(w) {
				quiet++
			}
			return envtest.Quiescence(m, w)
		}
		states, err := envtest.Explore(m, 200_000, check)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := envtest.Walk(m, 1, 200, 200, check); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if quiet == 0 || quiet == n {
			t.Errorf("%s: %d of %d worlds quiescent: the check never saw both sides", name, quiet, n)
		}
		t.Logf("%s: %d distinct worlds, %d visited, %d quiescent", name, states, n, quiet)
	}
}

// TestIgnorableIsBudgetCrashes pins the declaration itself: a Crash of a
// rank outside Config.Fail is ignorable, a Crash of a Fail rank and every
// other kind of action are not.
func TestIgnorableIsBudgetCrashes(t *testing.T) {
	cfg := env.SoundnessToys()["flood-blocking-fail"] // Fail = {p1}
	cfg.Crashes = 1
	m, err := env.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind uint8
		p    int32
		want bool
	}{
		{env.Crash, 0, true}, {env.Crash, 2, true}, {env.Crash, 1, false},
		{env.Deliver, 0, false}, {env.Lose, 0, false}, {env.Detect, 0, false},
		{env.Call, 0, false}, {env.Fire, 0, false}, {env.Clock, 0, false}, {env.Tick, 0, false},
	} {
		a := envAction(c.kind, c.p)
		if got := m.Ignorable(a); got != c.want {
			t.Errorf("Ignorable(%s p%d) = %v, want %v", env.KindName(c.kind), c.p, got, c.want)
		}
	}
}
