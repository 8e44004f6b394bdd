package replica

import (
	"context"
	"flag"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/registry"
)

// TestRegisteredCheck: `ftcheck check replica` builds from its flags, and
// bad flags are errors.
func TestRegisteredCheck(t *testing.T) {
	p, err := registry.Lookup("replica")
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Build([]string{"--program", "gather-sum", "--procs", "3", "--degree", "2", "--crashes", "1", "--network", "unordered"})
	if err != nil {
		t.Fatal(err)
	}
	res := r.BFS(checker.Options{Workers: 1})
	if !res.Complete || len(res.Violations) > 0 || res.States != 113714 {
		t.Fatalf("complete=%v violations=%d states=%d, want 113714 (the count of the direct search)", res.Complete, len(res.Violations), res.States)
	}
	for _, bad := range [][]string{
		{"--program", "nope"}, {"--network", "lossy"}, {"--fd", "gossip"}, {"--mutant", "nope"},
		{"--degree", "0"}, {"--crashes", "9"}, {"--program", "mid-example", "--procs", "2"},
	} {
		if _, err := p.Build(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	r, err = p.Build([]string{"--mutant", "no-backup-resend", "--replicate-rank0"})
	if err != nil {
		t.Fatal(err)
	}
	if res := r.BFS(checker.Options{Workers: 1}); len(res.Violations) == 0 {
		t.Fatal("mutant survived the CLI model")
	}
}

// TestRegisteredSimulate: `ftcheck simulate replica --failure-probability`
// reports p_app and, with --trials, p_app_mc inside its interval; without
// it, random walks.
func TestRegisteredSimulate(t *testing.T) {
	p, err := registry.Lookup("replica")
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) *registry.SimReport {
		fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
		b := p.Simulate(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		rep, err := b(context.Background(), func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := run("--failure-probability", "--p", "10", "--r", "3", "--lambda", "0.001", "--t", "100", "--shape", "1", "--trials", "200000", "--seed", "5")
	if got := rep.Figures["p_app"].(float64); !near(got, 8.585e-03, 1e-3) {
		t.Fatalf("p_app = %v", got)
	}
	if rep.Figures["p_app_in_ci95"] != true {
		t.Fatalf("Monte Carlo disagrees: %v", rep.Figures)
	}
	rep = run("--program", "ring", "--procs", "4", "--degree", "3", "--crashes", "3", "--walks", "20", "--seed", "2")
	if rep.Mode != "random-walks" || len(rep.Violations) > 0 || rep.Figures["quiescent"] != 20 {
		t.Fatalf("walks: %+v", rep)
	}
}
