package all

import (
	"flag"
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

// TestERAIsNotUniform: the paper's footnote 1. A process decides, then dies,
// and the survivors decide differently; BFS finds the shortest such run.
func TestERAIsNotUniform(t *testing.T) {
	res := build(t, "era", "--n", "3", "--crashes", "2").BFS(checker.Options{Properties: []string{"uniform-agreement"}})
	if len(res.Violations) == 0 {
		t.Fatalf("uniform agreement held on %d states", res.States)
	}
	tr := res.Violations[0]
	text := tr.String()
	decide := strings.Index(text, "decides")
	crash := strings.LastIndex(text, "crashes")
	if decide < 0 || crash < decide {
		t.Fatalf("want a decision followed by a crash:\n%s", text)
	}
	t.Logf("uniform-agreement counterexample, %d steps:\n%s", len(tr.Steps), text)
}
