package env_test

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// onlyZero is a Stable invariant every toy can violate: no history record
// carries a value other than 0 (flood decides the least proposal, which is
// p0's 0 unless p0 crashed; ticker delivers the number of TICKs it got).
func onlyZero() checker.Property[*env.World] {
	zero := core.AppendInt(nil, 0)
	return checker.Property[*env.World]{Name: "only-zero", Kind: checker.Invariant, Stable: true,
		Check: func(w *env.World) error {
			for p := range w.N() {
				for _, r := range w.History(core.Rank(p)) {
					if r.Value != nil && !bytes.Equal(r.Value.AppendBinary(nil), zero) {
						return fmt.Errorf("%v recorded %v", core.Rank(p), r.Value)
					}
				}
			}
			return nil
		}}
}

// toysWith returns every SoundnessToys config, and four of them under
// BoundedDelay with Δ = 2, with rel as MaySend and the onlyZero invariant,
// in name order.
func toysWith(rel func(*env.World, core.Rank, core.Rank) bool) ([]string, map[string]env.Config) {
	cfgs := env.SoundnessToys()
	// BoundedDelay variants (SoundnessToys has none): persistent sets must
	// then hold an action due now, so that no Tick happens outside them.
	for _, name := range []string{"flood-lossy", "star-survivor", "ticker-rounds", "flood-no-detector"} {
		cfg := cfgs[name]
		cfg.Timing, cfg.Delta = env.BoundedDelay, 2
		cfgs[name+"-delay2"] = cfg
	}
	names := make([]string, 0, len(cfgs))
	for name, cfg := range raceToys() {
		cfgs[name] = cfg // their own relation, unless rel is NoSend
	}
	for name, cfg := range cfgs {
		if cfg.MaySend == nil || rel == nil || reflect.ValueOf(rel).Pointer() == reflect.ValueOf(env.NoSend).Pointer() {
			cfg.MaySend = rel
		}
		cfg.Properties = append(cfg.Properties, onlyZero())
		cfgs[name] = cfg
		names = append(names, name)
	}
	slices.Sort(names)
	return names, cfgs
}

// TestPersistentToys: on every toy model, depth-first search with
// persistent sets (the toys' may-send relation) finds the same violated
// properties and the same quiescent worlds as without, visits no more
// states, and visits fewer on the flood and ticker models, where a
// process that has made its calls sends nothing more.
func TestPersistentToys(t *testing.T) {
	names, cfgs := toysWith(env.ToyMaySend)
	reduced := 0
	for _, name := range names {
		m, err := env.New(cfgs[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rep, err := envtest.ComparePersistent(m, 500_000)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.POR {
			t.Fatalf("%s: persistent sets not used: %s", name, rep.Note)
		}
		if rep.ReducedStates < rep.States {
			reduced++
		}
		t.Logf("%-20s states %6d → %6d, generated %7d → %7d, %d quiescent, pruned %d, proviso %d, violated {%s}",
			name, rep.States, rep.ReducedStates, rep.Transitions, rep.ReducedTransitions, rep.Quiescent, rep.Pruned, rep.Reexpanded, rep.Violated)
	}
	if reduced == 0 {
		t.Fatal("no toy model was reduced")
	}
}

// TestPersistentNilMaySendNoReduction: without a may-send relation every
// process may send to every other, so no world of any toy has a proper
// persistent set (the conservative default): nothing is pruned.
func TestPersistentNilMaySendNoReduction(t *testing.T) {
	names, cfgs := toysWith(nil)
	for _, name := range names {
		m, err := env.New(cfgs[name])
		if err != nil {
			t.Fatal(err)
		}
		rep, err := envtest.ComparePersistent(m, 500_000)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Pruned != 0 || rep.ReducedStates != rep.States {
			t.Fatalf("%s: pruned %d actions, %d of %d states without a may-send relation", name, rep.Pruned, rep.ReducedStates, rep.States)
		}
	}
}

// TestPersistentCatchesUnsoundRelation: the guard fails on a planted
// unsound may-send relation (nobody ever sends): some toy loses a
// quiescent world or a violation.
func TestPersistentCatchesUnsoundRelation(t *testing.T) {
	names, cfgs := toysWith(env.NoSend)
	caught := 0
	for _, name := range names {
		m, err := env.New(cfgs[name])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := envtest.ComparePersistent(m, 500_000); err != nil {
			caught++
			t.Logf("caught: %v", err)
		}
	}
	if caught == 0 {
		t.Fatal("the planted relation NoSend passed the guard on every toy")
	}
}

// TestPersistentRulesNeeded: each rule of Persistent is needed: with it
// broken (the crash rule, the due action under BoundedDelay, the
// lost-sender rule, the processes woken by messages), the guard finds a
// toy whose reduced search loses a quiescent world or a violation.
func TestPersistentRulesNeeded(t *testing.T) {
	names, cfgs := toysWith(env.ToyMaySend)
	for _, mut := range env.PersistentMutants {
		restore := env.SetPersistentMutant(mut)
		caught := ""
		for _, name := range names {
			m, err := env.New(cfgs[name])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := envtest.ComparePersistent(m, 500_000); err != nil {
				caught = err.Error()
				break
			}
		}
		restore()
		if caught == "" {
			t.Errorf("%s: no toy catches it", mut)
			continue
		}
		t.Logf("%s caught: %s", mut, caught)
	}
}

// TestPersistentCrashesOutsideS: with the detector off, a crash outside S
// is allowed even when S holds a process that may crash (condition 1a of
// checker.Persistent: two crashes commute whenever a path takes both). On
// every toy without a detector, and on the flood toy with a budget of two
// crashes, the guard holds (same violations, same quiescent worlds), the
// search visits no more states than under the conservative rule of before
// (PersistentCrashAbsorbs), and on some toy strictly fewer.
func TestPersistentCrashesOutsideS(t *testing.T) {
	names, cfgs := toysWith(env.ToyMaySend)
	c := cfgs["flood-no-detector"]
	c.Crashes = 2
	cfgs["flood-no-detector-2"] = c
	names = append(names, "flood-no-detector-2")
	fewer := 0
	for _, name := range names {
		cfg := cfgs[name]
		if cfg.Detector != env.DetectorNone || cfg.Crashes == 0 {
			continue
		}
		now, before := withAndWithout(t, name, cfg, env.PersistentCrashAbsorbs)
		if now.ReducedStates > before.ReducedStates {
			t.Errorf("%s: %d states, more than the %d of the conservative crash rule", name, now.ReducedStates, before.ReducedStates)
		}
		if now.ReducedStates < before.ReducedStates {
			fewer++
		}
		t.Logf("%-24s states %6d unreduced, %6d with the crash rule of before, %6d now", name, now.States, before.ReducedStates, now.ReducedStates)
	}
	if fewer == 0 {
		t.Fatal("no toy without a detector gained from letting crashes happen outside S")
	}
}

// withAndWithout runs the persistent-set guard (envtest.ComparePersistent)
// on cfg as the rules are, then with the test variant of Persistent's rules
// named, and returns both reports; it fails t if the guard fails on either.
func withAndWithout(t *testing.T, name string, cfg env.Config, variant mutant.Name) (now, under envtest.PORReport) {
	t.Helper()
	run := func() envtest.PORReport {
		m, err := env.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := envtest.ComparePersistent(m, 500_000)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return rep
	}
	now = run()
	restore := env.SetPersistentMutant(variant)
	defer restore()
	return now, run()
}
