package ringfd

import (
	"os"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// boundRows are the complete exhaustive runs of docs/ringfd.md's "Bounds
// reached" table (Δ, δ, η in ticks; rotation symmetry; single process
// crashes included): every property holds, with the distinct classes and
// transitions pinned. long rows run with FTKERNEL_LONG=1 only.
var boundRows = []struct {
	p           CheckParams
	states, gen int64
	long        bool
}{
	{CheckParams{N: 4, Procs: 0, Crashes: 1, Delta: 1, Period: 3, Timeout: 5}, 5564, 12289, false},
	{CheckParams{N: 3, Procs: 1, Crashes: 1, Delta: 1, Period: 2, Timeout: 4}, 13133, 49482, false},
	{CheckParams{N: 5, Procs: 0, Crashes: 1, Delta: 1, Period: 3, Timeout: 5}, 68258, 399370, true},
	{CheckParams{N: 6, Procs: 0, Crashes: 1, Delta: 1, Period: 3, Timeout: 5}, 222050, 1578515, true},
	{CheckParams{N: 4, Procs: 1, Crashes: 1, Delta: 1, Period: 3, Timeout: 5}, 1225238, 9675363, true},
	{CheckParams{N: 4, Procs: 0, Crashes: 1, Delta: 2, Period: 3, Timeout: 6}, 403517, 1606863, true},
	{CheckParams{N: 5, Procs: 0, Crashes: 2, Delta: 1, Period: 3, Timeout: 5}, 762406, 2732299, true},
}

// TestCheckBounds: the rows of the bounds table.
func TestCheckBounds(t *testing.T) {
	long := os.Getenv("FTKERNEL_LONG") == "1"
	for _, row := range boundRows {
		if row.long && !long {
			t.Logf("%+v: skipped (FTKERNEL_LONG=1 runs it)", row.p)
			continue
		}
		sm, err := NewSymModel(row.p)
		if err != nil {
			t.Fatal(err)
		}
		r := checker.BFS[*env.World](sm, checker.Options{Symmetry: true})
		if r.Err != nil || len(r.Violations) > 0 || !r.Complete {
			t.Fatalf("%+v: err %v, %d violations, complete %v", row.p, r.Err, len(r.Violations), r.Complete)
		}
		if r.States != row.states || r.Transitions != row.gen {
			t.Errorf("%+v: %d classes, %d generated; table: %d, %d", row.p, r.States, r.Transitions, row.states, row.gen)
		}
		t.Logf("N=%d P=%d F=%d Δ=%d δ=%d η=%d: %d classes, %d generated, all properties hold; bounds %v",
			row.p.N, row.p.Procs, row.p.Crashes, row.p.Delta, row.p.Period, row.p.Timeout, r.States, r.Transitions, r.Bounds)
	}
}
