// Package modeltest drives registered models from tests and benchmarks: it builds a
// runner or runs a simulation campaign from flag arguments, and checks
// that a mutant's runner is caught, failing the test on any error.
package modeltest

import (
	"context"
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/registry"
)

// Build makes a registered model from flag arguments, failing t on error.
func Build(t testing.TB, model string, args ...string) registry.Runner {
	t.Helper()
	p, err := registry.Lookup(model)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Build(args)
	if err != nil {
		t.Fatalf("build %s %v: %v", model, args, err)
	}
	return r
}

// Simulate runs a registered model's simulation campaign from flag
// arguments, failing t on error.
func Simulate(t testing.TB, model string, args ...string) *registry.SimReport {
	t.Helper()
	p, err := registry.Lookup(model)
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	run := p.Simulate(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	rep, err := run(context.Background(), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// MustCatch runs r's breadth-first search (the runner of a mutant), which
// must find a shortest counterexample that violates property in steps
// steps and replays to the same violation; it returns the search's result
// and that counterexample.
func MustCatch(t testing.TB, r registry.Runner, property string, steps int) (*checker.Result, *checker.Trace) {
	t.Helper()
	res := r.BFS(checker.Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(res.Violations) == 0 {
		t.Fatalf("mutant survived %d states (complete=%v)", res.States, res.Complete)
	}
	tr := res.Violations[0]
	if tr.Violation.Property != property || len(tr.Steps) != steps {
		t.Fatalf("caught by %s in %d steps, want %s in %d:\n%s", tr.Violation.Property, len(tr.Steps), property, steps, tr)
	}
	var ve *checker.ViolationError
	if err := r.Replay(tr); !errors.As(err, &ve) || ve.Violation.Property != property {
		t.Fatalf("replay: %v", err)
	}
	return res, tr
}

// CheckEnv builds model from args (space-separated flags), which must be
// an env model, and runs envtest.Check on it with plan: Quiescent must
// agree with Actions, distinct worlds must not share an encoding or a
// fingerprint, and at least one visited world must be quiescent (else the
// walks never ended a run). It logs the world counts.
func CheckEnv(t testing.TB, model, args string, plan envtest.Plan) {
	t.Helper()
	m, ok := registry.EnvModel(Build(t, model, strings.Fields(args)...))
	if !ok {
		t.Fatalf("%s: not an env model", args)
	}
	rep, err := envtest.Check(m, plan)
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	if rep.Quiescent == 0 {
		t.Errorf("%s: no quiescent world among %d: the walks never ended a run", args, rep.Visited)
	}
	t.Logf("%s: %d distinct worlds, %d visited, %d quiescent", args, rep.Distinct, rep.Visited, rep.Quiescent)
}

// PinCounts fails t unless the search res of the command args stopped at
// the property violated ("" when it must complete) and found exactly
// states distinct states, transitions generated transitions and depth
// (rounds of breadth-first search); a transitions or depth of 0 is not
// checked (the docs do not quote it).
func PinCounts(t testing.TB, args string, res *checker.Result, violated string, states, transitions int64, depth int) {
	t.Helper()
	if res.Err != nil {
		t.Fatalf("%s: %v", args, res.Err)
	}
	got := ""
	if len(res.Violations) > 0 {
		got = res.Violations[0].Violation.Property
	}
	if got != violated || res.Complete != (violated == "") {
		t.Errorf("%s: violated %q, complete %v; docs: violated %q", args, got, res.Complete, violated)
	}
	if res.States != states || (transitions != 0 && res.Transitions != transitions) || (depth != 0 && res.Depth != depth) {
		t.Errorf("%s: %d distinct, %d generated, depth %d; docs: %d, %d, %d (0: not quoted)",
			args, res.States, res.Transitions, res.Depth, states, transitions, depth)
	}
}

// CheckEnvRuns runs CheckEnv on each pair of model flag lines: the first
// with the exhaustive plan (a small configuration), the second with the
// walked plan (the same configuration at a larger size).
func CheckEnvRuns(t testing.TB, model string, pairs [][2]string, exhaustive, walked envtest.Plan) {
	t.Helper()
	for _, p := range pairs {
		CheckEnv(t, model, p[0], exhaustive)
		CheckEnv(t, model, p[1], walked)
	}
}

// ViolatedSet lists the properties r's violations break, sorted, joined
// by commas ("" when none).
func ViolatedSet(r *checker.Result) string {
	var names []string
	for _, tr := range r.Violations {
		names = append(names, tr.Violation.Property)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}
