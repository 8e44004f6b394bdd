package gossipfd

import (
	"context"
	"flag"
	"io"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	"github.com/ftkernel/ftkernel/registry"
)

func build(t *testing.T, args ...string) registry.Runner {
	return modeltest.Build(t, "gossipfd", args...)
}

func verdicts(r registry.Runner, sym bool) (map[string]int, *checker.Result) {
	res := r.BFS(checker.Options{Workers: 1, Symmetry: sym, ContinueAfterViolation: true})
	out := map[string]int{}
	for _, tr := range res.Violations {
		out[tr.Violation.Property] = len(tr.Steps)
	}
	return out, res
}

// TestRegisteredCheck: `ftcheck check gossipfd` finds the §5.1 example
// (accuracy without the ping phase, no-false-suspicion with it, 7 steps),
// DBRR holds, and symmetry keeps the verdicts with fewer states.
func TestRegisteredCheck(t *testing.T) {
	v, _ := verdicts(build(t, "--variant", "brr", "--n", "4", "--crashes", "2", "--cleanup", "4", "--ping=false"), false)
	if v["accuracy"] != 7 || v["no-false-suspicion"] != 7 || len(v) != 2 {
		t.Errorf("BRR n=4 F=2 without ping: %v", v)
	}
	v, _ = verdicts(build(t, "--variant", "brr", "--n", "4", "--crashes", "2", "--cleanup", "4"), false)
	if v["accuracy"] != 0 || v["no-false-suspicion"] != 7 || len(v) != 1 {
		t.Errorf("BRR n=4 F=2 with ping: %v", v)
	}
	for _, sym := range []bool{false, true} {
		v, res := verdicts(build(t, "--variant", "dbrr", "--n", "5", "--crashes", "2"), sym)
		if len(v) != 0 || !res.Complete || res.Symmetry != sym {
			t.Errorf("DBRR n=5 F=2 sym=%v: %v, complete %v", sym, v, res.Complete)
		}
	}
	if _, res := verdicts(build(t, "--variant", "random", "--n", "4", "--crashes", "1", "--cleanup", "12"), true); res.Symmetry {
		t.Error("symmetry used for the random variant")
	}
}

// TestRegisteredMutantsCaught: each mutant is caught first by the property
// and in the counterexample length given (the shortest: breadth-first),
// at bounds where the correct detector keeps that property; every
// property of the round model is the first one caught for some mutant
// (docs/gossipfd.md, "Mutants").
func TestRegisteredMutantsCaught(t *testing.T) {
	caught := map[string]bool{}
	for _, c := range []struct {
		args  []string
		prop  string
		steps int
	}{
		{[]string{"--variant", "brr", "--n", "4", "--crashes", "1", "--mutant", "brr-offset-2r"}, "no-false-suspicion", 5},
		{[]string{"--variant", "dbrr", "--n", "4", "--crashes", "2", "--mutant", "dbrr-same-direction"}, "no-false-suspicion", 9},
		{[]string{"--variant", "dbrr", "--n", "4", "--crashes", "2", "--mutant", "merge-last-received"}, "suspicion-round", 9},
		{[]string{"--variant", "dbrr", "--n", "4", "--crashes", "1", "--cleanup", "3", "--mutant", "cleanup-ge"}, "no-false-suspicion", 4},
		{[]string{"--variant", "brr", "--n", "4", "--crashes", "2", "--cleanup", "4", "--mutant", "ping-never-answers"}, "accuracy", 7},
		// Live routing has no suspicion-round (its routing follows the
		// declarations), so completeness is the first catch there.
		{[]string{"--variant", "dbrr", "--n", "4", "--crashes", "1", "--cleanup", "6", "--routing", "live", "--detect-bound", "15", "--mutant", "never-suspect"}, "completeness", 16},
	} {
		correct := build(t, c.args[:len(c.args)-2]...)
		if v, _ := verdicts(correct, false); v[c.prop] != 0 {
			t.Errorf("%v: the correct detector violates %s", c.args, c.prop)
		}
		modeltest.MustCatch(t, build(t, c.args...), c.prop, c.steps)
		caught[c.prop] = true
	}
	for _, p := range build(t).Properties() {
		if !caught[p.Name] {
			t.Errorf("no mutant is caught first by %s", p.Name)
		}
	}
}

func TestRegisteredSimulate(t *testing.T) {
	p, _ := registry.Lookup("gossipfd")
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	run := p.Simulate(fs)
	if err := fs.Parse([]string{"--variant", "brr", "--n", "8", "--fd-failure", "--trials", "500", "--seed", "9"}); err != nil {
		t.Fatal(err)
	}
	rep, err := run(context.Background(), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Seed != 9 || rep.Figures["p_cut_ci95"] == nil || rep.Figures["trials"] != float64(500) {
		t.Errorf("report %+v", rep)
	}
}

// TestRegisteredBoundedDelay: --timing bounded checks the detector in
// checker/env's bounded-delay environment.
func TestRegisteredBoundedDelay(t *testing.T) {
	v, _ := verdicts(build(t, "--timing", "bounded", "--variant", "brr", "--n", "4", "--crashes", "2", "--cleanup", "4", "--ping=false", "--max-rounds", "8"), false)
	if v["accuracy"] == 0 {
		t.Errorf("BRR n=4 F=2 under bounded delay: %v", v)
	}
	r := build(t, "--timing", "bounded", "--variant", "dbrr", "--n", "4", "--crashes", "1", "--max-rounds", "8")
	v, res := verdicts(r, false)
	if len(v) != 0 || !res.Complete {
		t.Errorf("DBRR n=4 F=1 under bounded delay: %v, complete %v", v, res.Complete)
	}
	// The symmetric model (registry.EnvBacked) keeps the env runner's
	// charts and EnvModel.
	if _, ok := r.(registry.Charter); !ok {
		t.Error("the bounded-delay runner draws no charts")
	}
	if m, ok := registry.EnvModel(r); !ok || m.N() != 4 {
		t.Error("the bounded-delay runner has no env model")
	}
}
