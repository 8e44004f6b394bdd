package correction

import (
	"reflect"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/registry"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

func buildCorrection(t *testing.T, args ...string) registry.Runner {
	t.Helper()
	p, err := registry.Lookup("correction")
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Build(args)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Exhaustive, tiny: every property holds for checked correction with one
// failure before correction, and fault-free for every tree.
func TestCorrectionExhaustiveSmall(t *testing.T) {
	for _, args := range [][]string{
		{"--P", "3", "--correction", "checked", "--faults", "1", "--faults-before-correction"},
		{"--P", "4", "--correction", "opportunistic", "--d", "1", "--faults", "1", "--faults-before-correction"},
		{"--P", "4", "--tree", "kary-inorder", "--correction", "optimized", "--d", "1", "--start", "overlapped", "--faults", "0"},
		{"--P", "3", "--tree", "lame", "--correction", "delayed", "--faults", "0"},
	} {
		res := buildCorrection(t, args...).BFS(checker.Options{})
		if res.Err != nil || !res.Complete || len(res.Violations) > 0 {
			t.Fatalf("%v: err %v complete %v violations %v", args, res.Err, res.Complete, res.Violations)
		}
		t.Logf("%v: %d states", args, res.States)
	}
}

func simCorrection(t *testing.T, args ...string) *registry.SimReport {
	t.Helper()
	return simulate(t, "correction", args...)
}

func TestCorrectionSimulateSingleAndDeterministic(t *testing.T) {
	args := []string{"--P", "4096", "--tree", "lame", "--correction", "checked", "--fault-rate", "0.02", "--runs", "6", "--seed", "3"}
	a, b := simCorrection(t, args...), simCorrection(t, args...)
	if !reflect.DeepEqual(a.Figures, b.Figures) {
		t.Fatal("same seed, different figures")
	}
	if len(a.Violations) != 0 || a.Figures["uncolored"].(Dist).Max != 0 {
		t.Fatalf("checked correction left processes uncolored: %+v", a.Figures)
	}
	one := simCorrection(t, "--P", "1024", "--faults", "1,5,9")
	for _, k := range []string{"coloring", "quiescence", "correction_latency", "messages", "correction_messages", "uncolored", "g_max"} {
		if _, ok := one.Figures[k]; !ok {
			t.Fatalf("single run lacks %q: %v", k, one.Figures)
		}
	}
	if one.Figures["correction_latency"].(int64) < 8 {
		t.Fatalf("L_SCC %v below the fault-free 8", one.Figures["correction_latency"])
	}
}

// Figure 1b, small: with faults an in-order binomial tree corrects more
// slowly than the interleaved one.
func TestCorrectionFigure1bSmall(t *testing.T) {
	mean := func(tree string) float64 {
		rep := simCorrection(t, "--P", "4096", "--tree", tree, "--correction", "checked", "--fault-rate", "0.01", "--runs", "8")
		return rep.Figures["correction_latency"].(Dist).Mean
	}
	in, il := mean("binomial-inorder"), mean("binomial")
	t.Logf("mean L_SCC at 1%%, P=4096: in-order %.1f, interleaved %.1f", in, il)
	if !(in > il) {
		t.Fatalf("in-order %.1f not slower than interleaved %.1f", in, il)
	}
}

// The opportunistic-left-only mutant is caught: P=6, d=1, two failures
// before correction leave p3 uncolored (12 steps, BFS: shortest).
func TestCorrectionMutantLeftOnlyCaught(t *testing.T) {
	r := buildCorrection(t, "--P", "6", "--correction", "opportunistic", "--d", "1", "--faults", "2",
		"--faults-before-correction", "--mutant", string(corrsm.MutantOpportunisticLeftOnly))
	res := r.BFS(checker.Options{})
	if res.Err != nil || len(res.Violations) == 0 || res.Violations[0].Violation.Property != "non-faulty-liveness" {
		t.Fatalf("mutant not caught: %v %v", res.Err, res.Violations)
	}
	t.Logf("counterexample: %d steps", len(res.Violations[0].Steps))
}

func TestCorrectionMutantsListed(t *testing.T) {
	p, _ := registry.Lookup("correction")
	if len(p.Mutants) != len(corrsm.Mutants) {
		t.Fatal("mutants not listed")
	}
}
