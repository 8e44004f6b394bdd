package msglog

import (
	"os"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/internal/mutant"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// TestCheckCounts pins docs/msglog.md's exhaustive runs (3 processes, one
// crash and its restart, the centralized logger): the complete searches'
// states, and each mutant's shortest counterexample (BFS) with the
// property that catches it. The costly rows run with FTKERNEL_LONG=1.
func TestCheckCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive searches")
	}
	for _, c := range []struct {
		program string
		mut     mutant.Name
		states  int64 // complete searches
		steps   int   // counterexamples
		prop    string
		long    bool // over 5 s: with FTKERNEL_LONG=1
	}{
		{program: "fig51", states: 218692, long: true},
		{program: "probe", states: 231990, long: true},
		{program: "fig51", mut: ml.MutantReplayArrivalOrder, steps: 22, prop: Faithful, long: true},
		{program: "fig51", mut: ml.MutantDeliverBeforeAck, steps: 8, prop: Pessimism},
		{program: "fig51", mut: ml.MutantZeroBasedIDs, steps: 3, prop: GCSafe},
		{program: "fig51", mut: ml.MutantRetransmitReceived, steps: 17, prop: NoDuplicate},
		{program: "fig51", mut: ml.MutantGCLiveCounter, steps: 5, prop: GCSafe},
		{program: "probe", mut: ml.MutantForgetRepetitions, steps: 17, prop: Faithful},
	} {
		t.Run(c.program+"/"+string(c.mut), func(t *testing.T) {
			if c.long && os.Getenv("FTKERNEL_LONG") != "1" {
				t.Skip("FTKERNEL_LONG=1")
			}
			m, err := NewModel(Params{Program: c.program, Procs: 3, Logger: el.Centralized, Crashes: 1, Recoveries: 1, Mutant: c.mut})
			if err != nil {
				t.Fatal(err)
			}
			res := checker.Search(m, checker.Options{MaxStates: 1 << 21})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if c.steps > 0 {
				if len(res.Violations) == 0 {
					t.Fatalf("no counterexample (%d states, complete=%v)", res.States, res.Complete)
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
