package ringfd

import (
	"flag"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/registry"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

func bfs(t *testing.T, p CheckParams, maxStates int64, props ...string) *checker.Result {
	t.Helper()
	m, err := NewCheckModel(p)
	if err != nil {
		t.Fatal(err)
	}
	r := checker.BFS[*env.World](m, checker.Options{Workers: 1, Properties: props, MaxStates: maxStates})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	return r
}

// TestCheckAsyncAccuracyFails: in the asynchronous environment a timeout
// may fire before any heartbeat, so strong accuracy fails, and the
// shortest counterexample is the hand-counted one: a daemon starts (step
// 1) and its timeout fires at once (step 2).
func TestCheckAsyncAccuracyFails(t *testing.T) {
	r := bfs(t, CheckParams{N: 3, Procs: 1, Crashes: 1, Delta: 1, Period: 2, Timeout: 4}, 0, PropAccuracy)
	if len(r.Violations) != 1 || len(r.Violations[0].Steps) != 2 {
		t.Fatalf("want one 2-step false suspicion, got %+v", r.Violations)
	}
}

// TestCheckAsyncForwardOnce: forward-at-most-once holds for the correct
// protocol within the bounds reached and is broken by forward-always.
func TestCheckAsyncForwardOnce(t *testing.T) {
	p := CheckParams{N: 3, Procs: 0, Crashes: 1, Delta: 1, Period: 2, Timeout: 4}
	if r := bfs(t, p, 20000, PropForwardOnce); len(r.Violations) != 0 {
		t.Fatalf("correct protocol: %v", r.Violations[0].Violation)
	}
	p.Mutant = fd.MutantForwardAlways
	r := bfs(t, p, 20000, PropForwardOnce)
	if len(r.Violations) == 0 {
		t.Fatal("forward-always survives")
	}
	t.Logf("forward-always caught by %s after %d steps", PropForwardOnce, len(r.Violations[0].Steps))
}

// TestRegistered: ftcheck knows ringfd, its mutants, and simulate prints the
// issue's JSON names.
func TestRegistered(t *testing.T) {
	p, err := registry.Lookup("ringfd")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Mutants) != len(fd.Mutants) {
		t.Fatalf("%d mutants registered, %d in the package", len(p.Mutants), len(fd.Mutants))
	}
	fs := flag.NewFlagSet("simulate ringfd", flag.ContinueOnError)
	run := p.Simulate(fs)
	if err := fs.Parse([]string{"--n", "16", "--procs", "2", "--fail", "3", "--period", "10", "--timeout", "20", "--seed", "5"}); err != nil {
		t.Fatal(err)
	}
	rep, err := run(func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"messages_daemon", "messages_process", "messages_heartbeat", "hops_max", "detection_latency", "propagation_latency"} {
		if _, ok := rep.Figures[k]; !ok {
			t.Errorf("simulate report lacks %q", k)
		}
	}
	if rep.Seed != 5 || len(rep.Violations) != 0 || rep.Figures["messages_daemon"] != 15*Degree(16) {
		t.Fatalf("report %+v", rep)
	}
	r, err := p.Build([]string{"--n", "3", "--procs", "1", "--crashes", "1", "--bmg", "ompi", "--skip=false"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Params()["bmg"] != "ompi" || r.Params()["skip"] != "false" {
		t.Fatalf("params %v", r.Params())
	}
}
