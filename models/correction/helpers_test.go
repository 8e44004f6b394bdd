package correction

import (
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"

	"github.com/ftkernel/ftkernel/registry"
)

// build makes a registered model from flag arguments, failing t on error.
func build(t *testing.T, model string, args ...string) registry.Runner {
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

// simulate runs a registered model's simulation campaign from flag
// arguments, failing t on error.
func simulate(t *testing.T, model string, args ...string) *registry.SimReport {
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
	rep, err := run(func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// mustCatch runs r's breadth-first search (the runner of a mutant), which
// must find a shortest counterexample that violates property in steps
// steps and replays to the same violation; it returns the search's result
// and that counterexample.
func mustCatch(t *testing.T, r registry.Runner, property string, steps int) (*checker.Result, *checker.Trace) {
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

// first is the first violation of v, or "none".
func first(v []*checker.Trace) string {
	if len(v) == 0 {
		return "none"
	}
	return v[0].Violation.String()
}

// violatedSet lists the properties r's violations break, sorted, joined
// by commas.
func violatedSet(r *checker.Result) string {
	var names []string
	for _, tr := range r.Violations {
		names = append(names, tr.Violation.Property)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}
