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
	}
	variantCaught(t, "quiet without the commutation clause", &quietSkipsCommute, func(Params) bool { return true })
	variantCaught(t, "quiet at crashable receivers without forgetting", &quietCrashWithoutForget,
		func(p Params) bool { return p.Faults > 0 && !p.ForgetCrashed })
}

// variantCaught sets the test-only variant flag *on, runs the
// persistent-set guard on the configurations of quietConfigs that use
// accepts, and fails unless the guard reports a difference on one of them.
func variantCaught(t *testing.T, name string, on *bool, use func(Params) bool) {
	t.Helper()
	*on = true
	defer func() { *on = false }()
	for _, p := range quietConfigs() {
		if !use(p) {
			continue
		}
		m, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := envtest.ComparePersistent(m, 1_000_000); err != nil {
			t.Logf("%s, %s: caught: %v", name, m.Name(), strings.SplitN(err.Error(), "\n", 2)[0])
			return
		}
	}
	t.Fatalf("%s: not caught on any configuration", name)
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
