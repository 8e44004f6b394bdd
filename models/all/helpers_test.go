package all

import (
	"flag"
	"testing"

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
