package eventlogger

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// forgetRows are the configurations on which forgetting crashed processes
// (--forget-crashed) is compared with the plain search.
var forgetRows = []Params{
	{Kind: el.Centralized, Procs: 2, F: 1, Saves: 1, Crashes: 1},
	{Kind: el.Centralized, Procs: 2, F: 1, Saves: 1, Crashes: 2, CrashLogger: true},
	{Kind: el.Parallel, Procs: 1, F: 1, Saves: 2, Remove: true, Crashes: 2},
	{Kind: el.Parallel, Procs: 1, F: 1, Saves: 1, Crashes: 1, Loss: 2, Mutant: el.MutantRetrieveOneAcceptor},
}

// forgetLongRows run with FTKERNEL_LONG=1 only (462,508 states, about 20 s
// of CPU).
var forgetLongRows = []Params{
	{Kind: el.Classic, Procs: 1, F: 1, Saves: 1, Crashes: 1, Retransmit: 7},
}

// TestForgetSoundness: with and without --forget-crashed, the safety
// search (envtest.CompareForget: the same violated properties, the
// forgetting search's quiescent and visited worlds exactly the images of
// the plain search's, its counterexamples replaying on both models) and
// the graph search of termination (envtest.CompareForgetEventually: the
// same verdict and the same bound) agree, on every row (the Classic one
// with FTKERNEL_LONG=1), so that
// docs/eventlogger.md's exhaustive runs may forget crashed processes.
func TestForgetSoundness(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive searches")
	}
	rows := forgetRows
	if modeltest.Long() {
		rows = append(rows, forgetLongRows...)
	}
	for _, p := range rows {
		p.Timing, p.Delta = env.BoundedDelay, 1
		plain, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		p.ForgetCrashed = true
		forget, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := envtest.CompareForget(plain, forget, 1<<20, false)
		if err != nil {
			t.Fatalf("%s: %v", plain.Name(), err)
		}
		ev, err := envtest.CompareForgetEventually(plain, forget, 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", plain.Name(), err)
		}
		if ev.Properties == 0 {
			t.Fatalf("%s: no Eventually property compared", plain.Name())
		}
		t.Logf("%s: states %d → %d, quiescent %d → %d {%s}; graph %d → %d {%s} %s", plain.Name(),
			rep.States, rep.ForgetStates, rep.Quiescent, rep.ForgetQuiescent, rep.Violated, ev.States, ev.ForgetStates, ev.Violated, ev.Bounds)
	}
}
