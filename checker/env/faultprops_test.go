package env

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// faultToys are the fault-budget toys with the fault properties (and,
// under BoundedDelay, the timing properties).
func faultToys() map[string]Config {
	toys := faultCodecConfigs()
	toys["disk-crash-stop"] = Config{Name: "disk", N: 2, Crashes: 1, NewNode: newDisk(false), Schedules: diskConfig(2, 0, 0, true, DetectorPerfect).Schedules}
	lax := diskConfig(2, 1, 1, true, DetectorNone)
	lax.NewNode = func(p core.Rank, n int) core.Machine { return &disk{me: p, n: n, lax: true} }
	toys["disk-lax"] = lax
	pb := pipeConfig(Unordered, 1, 1, 1, 2)
	pb.Timing, pb.Delta = BoundedDelay, 2
	toys["pipe-bounded-loss-dup"] = pb
	for name, c := range toys {
		c.Properties = FaultProperties()
		if c.Timing == BoundedDelay {
			c.Properties = append(c.Properties, TimingProperties()...)
		}
		toys[name] = c
	}
	return toys
}

// TestFaultPropsHold: the fault properties (and the timing ones under
// BoundedDelay: a copy keeps its original's window) hold on every edge of
// the correct environment's toys.
func TestFaultPropsHold(t *testing.T) {
	for name, c := range faultToys() {
		r := mustHold(t, name, c)
		t.Logf("%-22s %6d states", name, r.States)
	}
}

// TestFaultMutantsCaught: each broken budget rule (FaultMutants) is caught
// by the property named, on the toy named, with the shortest
// counterexample of the length given.
func TestFaultMutantsCaught(t *testing.T) {
	toys := faultToys()
	for _, c := range []struct {
		mut   mutant.Name
		toy   string
		prop  string
		steps int
	}{
		{FaultRecoverFree, "disk-recover", PropRecoveries, 4},
		{FaultRecoverVolatile, "disk-lax", PropRecoveries, 4},
		{FaultLoseFree, "pipe-loss-dup", PropLosses, 2},
		{FaultDupTwice, "pipe-fifo-loss-dup", PropDuplicates, 2},
	} {
		restore := SetFaultMutant(c.mut)
		r := checker.BFS[*World](mustNew(t, toys[c.toy]), checker.Options{Workers: 1})
		restore()
		if r.Err != nil || len(r.Violations) == 0 {
			t.Errorf("%s on %s: not caught (err %v)", c.mut, c.toy, r.Err)
			continue
		}
		v := r.Violations[0]
		if v.Violation.Property != c.prop || len(v.Steps) != c.steps {
			t.Errorf("%s on %s: %s in %d steps, want %s in %d: %v", c.mut, c.toy, v.Violation.Property, len(v.Steps), c.prop, c.steps, v.Violation)
		}
	}
}

// TestFaultsSleepSets: breadth-first search with sleep sets finds the same
// states and violated properties as without, on the toys, correct and
// under each mutant but fault-recover-free (restarts that spend nothing
// make the space infinite) (sleep sets rest on Independent, which makes Recover,
// DetectRecover, Lose and Duplicate dependent with everything); depth-first
// search with persistent sets reduces nothing there.
func TestFaultsSleepSets(t *testing.T) {
	for name, c := range faultToys() {
		for _, mut := range []mutant.Name{mutant.None, FaultRecoverVolatile, FaultLoseFree, FaultDupTwice} {
			restore := SetFaultMutant(mut)
			m := mustNew(t, c)
			opt := checker.Options{Workers: 1, ContinueAfterViolation: true}
			a := checker.BFS[*World](m, opt)
			opt.POR = true
			b := checker.BFS[*World](m, opt)
			restore()
			if a.Err != nil && mut == mutant.None || (a.Err == nil) != (b.Err == nil) {
				t.Fatalf("%s %s: %v / %v", name, mut, a.Err, b.Err)
			}
			if a.Err != nil {
				continue // a mutant the toy's own checks refuse (a volatile restart): the same error both ways
			}
			va, vb := violatedSet(a), violatedSet(b)
			if a.States != b.States || va != vb || b.Transitions+b.Slept != a.Transitions {
				t.Errorf("%s %s: %d states {%s} without sleep sets, %d states {%s} with", name, mut, a.States, va, b.States, vb)
			}
		}
		m := mustNew(t, c)
		for _, w := range walkStates(m, 3, 20, 30) {
			as := m.Actions(w, nil)
			if p := m.Persistent(w, as, nil); len(p) != 0 {
				t.Fatalf("%s: persistent set %v in %v", name, p, w)
			}
		}
	}
}

// TestFaultsSample: random walks on the toys end in quiescent worlds,
// take every kind of fault action somewhere, and never exceed a budget.
func TestFaultsSample(t *testing.T) {
	kinds := map[uint8]bool{}
	for name, c := range faultToys() {
		c.CrashProb = 0.3
		m := mustNew(t, c)
		r := rand.New(rand.NewPCG(5, 6))
		for range 200 {
			w := m.Init()[0]
			for depth := 0; ; depth++ {
				a, ok := m.Sample(w, r, nil)
				if !ok {
					break
				}
				if depth > 100 {
					t.Fatalf("%s: a walk longer than 100 steps", name)
				}
				next, err := m.Apply(w, a)
				if err != nil {
					if strings.Contains(err.Error(), "volatile") {
						t.Fatalf("%s: %v", name, err)
					}
					t.Fatalf("%s: sampled %s: %v", name, m.Describe(w, a), err)
				}
				kinds[a.Kind] = true
				w = next
			}
			if !m.Quiescent(w) || w.Recoveries() > c.Recoveries || w.Lost() > c.Losses || w.Duplicated() > c.Duplicates {
				t.Fatalf("%s: a walk ended in %v (quiescent %v, %d restarts, %d lost, %d duplicated)", name, w, m.Quiescent(w), w.Recoveries(), w.Lost(), w.Duplicated())
			}
		}
	}
	for _, k := range []uint8{Recover, DetectRecover, Lose, Duplicate, Crash, Detect} {
		if !kinds[k] {
			t.Errorf("no %s sampled", KindName(k))
		}
	}
}
