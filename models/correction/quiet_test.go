package correction

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// quietConfigs are small asynchronous checked models on which the quiet
// messages matter (the receivers cannot crash: no faults).
func quietConfigs() []Params {
	base := Params{P: 3, Tree: corrsm.Tree{Kind: corrsm.BinomialInterleaved, K: 2}, Correction: corrsm.Checked,
		Start: corrsm.Synchronized, Compact: true}
	var ps []Params
	for _, mut := range []mutant.Name{"", corrsm.MutantCheckedStopEarly} {
		for _, drop := range []bool{false, true} {
			p := base
			p.Mutant, p.DropAbsorbed = mut, drop
			ps = append(ps, p)
		}
	}
	p := base
	p.P = 2
	p.Mutant = corrsm.MutantCheckedStopEarly
	ps = append(ps, p)
	// Receivers that may crash: quiet messages there need forgetting.
	for _, f := range []int{1, 2} {
		for _, forget := range []bool{false, true} {
			p := base
			p.Faults, p.ForgetCrashed, p.DropAbsorbed = f, forget, true
			ps = append(ps, p)
		}
	}
	p = base
	p.Faults, p.ForgetCrashed, p.Loss, p.Mutant = 1, true, env.LossOnCrash, corrsm.MutantCheckedStopEarly
	return append(ps, p)
}

// TestQuietRuleNeeded: with quiet messages (maySendQuiet), persistent sets
// keep every verdict and quiescent world of the unreduced search on the
// configurations above (envtest.ComparePersistent) and visit fewer states
// than with absorbed messages alone on the first; the broken variant that
// does not ask a quiet message to commute with the receiver's enabled
// events (quietSkipsCommute) is caught on one of them, and so is the one
// that takes quiet messages at receivers that may crash without forgetting
// (quietCrashWithoutForget).
func TestQuietRuleNeeded(t *testing.T) {
	caught, caughtCrash := false, false
	for i, p := range quietConfigs() {
		m, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := envtest.ComparePersistent(m, 1_000_000)
		if err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		t.Logf("%-100s states %6d → %6d", m.Name(), rep.States, rep.ReducedStates)
		if i == 0 {
			plain := withMaySend(t, p, maySend)
			before, err := envtest.ComparePersistent(plain, 1_000_000)
			if err != nil {
				t.Fatal(err)
			}
			if rep.ReducedStates >= before.ReducedStates {
				t.Errorf("%s: %d states with quiet messages, %d with absorbed ones alone", m.Name(), rep.ReducedStates, before.ReducedStates)
			}
		}
		quietSkipsCommute = true
		m2, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = envtest.ComparePersistent(m2, 1_000_000)
		quietSkipsCommute = false
		if err != nil {
			caught = true
			t.Logf("quiet without the commutation clause, %s: caught: %v", m.Name(), strings.SplitN(err.Error(), "\n", 2)[0])
		}
	}
	if !caught {
		t.Fatal("the quiet rule without its commutation clause was not caught on any configuration")
	}
	for _, p := range quietConfigs() {
		if p.Faults == 0 || p.ForgetCrashed {
			continue
		}
		quietCrashWithoutForget = true
		m, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = envtest.ComparePersistent(m, 1_000_000)
		quietCrashWithoutForget = false
		if err != nil {
			caughtCrash = true
			t.Logf("quiet at crashable receivers without forgetting, %s: caught: %v", m.Name(), strings.SplitN(err.Error(), "\n", 2)[0])
		}
	}
	if !caughtCrash {
		t.Fatal("quiet messages at crashable receivers without forgetting were not caught on any configuration")
	}
}

// withMaySend builds p with its may-send relation replaced by rel.
func withMaySend(t *testing.T, p Params, rel func(*env.World, core.Rank, core.Rank) bool) *env.Model {
	t.Helper()
	m, err := newModelWith(p, rel)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
