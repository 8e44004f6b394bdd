package msglog

import (
	"fmt"
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
		delayed bool
		props   []string // nil: all
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
		// The orphan itself: P1 sends m5 depending on deliveries whose
		// determinants were never saved, crashes, and its recovery sends
		// another m5; P0 delivered the first.
		{program: "fig51", mut: ml.MutantDeliverBeforeAck, props: []string{NoOrphan}, steps: 26, prop: NoOrphan, long: true},
		{program: "fig51", mut: ml.MutantZeroBasedIDs, steps: 3, prop: GCSafe},
		{program: "fig51", mut: ml.MutantRetransmitReceived, steps: 17, prop: NoDuplicate},
		{program: "fig51", mut: ml.MutantGCLiveCounter, steps: 5, prop: GCSafe},
		{program: "probe", mut: ml.MutantForgetRepetitions, steps: 17, prop: Faithful},
		// Ambiguity A: the literal 0-based ids lose a message at the
		// re-send (the replay receives m4 where its determinant says m2;
		// or a process blocks for a message never re-sent).
		{program: "fig51", mut: ml.MutantZeroBasedIDs, props: []string{Faithful, NoOrphan, NoDuplicate, Termination}, steps: 23, prop: Faithful, long: true},
		{program: "gather", mut: ml.MutantZeroBasedIDs, props: []string{Faithful, NoOrphan, NoDuplicate, Termination}, steps: 17, prop: Termination},
		// Ambiguity C: with delayed acknowledgements the literal
		// el_remove(last_id) removes a determinant the checkpoint does
		// not cover; the chosen fix holds over the complete search.
		{program: "gather", delayed: true, mut: ml.MutantRemoveLiveLastID, steps: 10, prop: DetsKept},
		{program: "gather", delayed: true, states: 82146},
	} {
		t.Run(fmt.Sprintf("%s/delayed=%v/%s", c.program, c.delayed, c.mut), func(t *testing.T) {
			if c.long && os.Getenv("FTKERNEL_LONG") != "1" {
				t.Skip("FTKERNEL_LONG=1")
			}
			m, err := NewModel(Params{Program: c.program, Procs: 3, Logger: el.Centralized, Crashes: 1, Recoveries: 1, DelayedAck: c.delayed, Mutant: c.mut})
			if err != nil {
				t.Fatal(err)
			}
			res := checker.Search(m, checker.Options{MaxStates: 1 << 21, MaxMemory: 1 << 30, Properties: c.props})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if res.Stop == checker.StopMaxMemory {
				t.Skipf("the machine's memory ran short (%d states): nothing proved", res.States)
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
