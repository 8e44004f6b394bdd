package eventlogger

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// TestCheckCounts pins docs/eventlogger.md's small exhaustive runs: the
// states of the complete searches, and each mutant's or expected
// failure's counterexample length.
func TestCheckCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive searches")
	}
	for _, c := range []struct {
		name   string
		p      Params
		props  []string
		states int64 // complete searches
		steps  int   // counterexamples
		prop   string
	}{
		{name: "centralized", p: Params{Kind: el.Centralized, Procs: 2, F: 1, Saves: 1, Crashes: 1}, states: 259},
		{name: "crash-logger", p: Params{Kind: el.Centralized, Procs: 2, F: 1, Saves: 1, Crashes: 1, CrashLogger: true},
			props: []string{Termination}, steps: 5, prop: Termination},
		{name: "one-acceptor, parallel", p: Params{Kind: el.Parallel, Procs: 1, F: 1, Saves: 1, Loss: 2, Mutant: el.MutantRetrieveOneAcceptor},
			props: []string{Linearizable_}, steps: 28, prop: Linearizable_},
		{name: "one-acceptor, parallel, no loss", p: Params{Kind: el.Parallel, Procs: 2, F: 1, Saves: 1, Mutant: el.MutantRetrieveOneAcceptor},
			states: 14260},
		{name: "parallel, loss", p: Params{Kind: el.Parallel, Procs: 1, F: 1, Saves: 1, Loss: 2}, props: []string{Linearizable_}, states: 4564},
		{name: "parallel, recovery", p: Params{Kind: el.Parallel, Procs: 1, F: 1, Saves: 2, Crashes: 1, Recoveries: 1}, states: 20874},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.p.Timing, c.p.Delta = env.BoundedDelay, 1
			m, err := NewModel(c.p)
			if err != nil {
				t.Fatal(err)
			}
			res := checker.Search(m, checker.Options{Properties: c.props, MaxStates: 1 << 21})
			if c.steps > 0 {
				if len(res.Violations) == 0 {
					t.Fatalf("no counterexample (%d states)", res.States)
				}
				v := res.Violations[0]
				if v.Violation.Property != c.prop || len(v.Steps) != c.steps {
					t.Fatalf("%s after %d steps, want %s after %d", v.Violation.Property, len(v.Steps), c.prop, c.steps)
				}
				return
			}
			if len(res.Violations) > 0 || !res.Complete || res.States != c.states {
				t.Fatalf("%d states, complete=%v, %d violations; want %d, complete, none", res.States, res.Complete, len(res.Violations), c.states)
			}
		})
	}
}
