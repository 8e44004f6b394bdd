package replica

import (
	"os"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/checker"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

func TestStackScratch(t *testing.T) {
	if os.Getenv("STACK_SCRATCH") == "" {
		t.Skip()
	}
	for _, c := range []struct {
		p Params
		s StackParams
	}{
		{Params{Program: "ping-pong", Procs: 2, Degree: 2}, StackParams{Variant: fd.DBRR, TGossip: 4, MaxRounds: 10, Delta: 1}},
		{Params{Program: "ping-pong", Procs: 2, Degree: 2, Crashes: 1}, StackParams{Variant: fd.DBRR, TGossip: 4, MaxRounds: 10, Delta: 1}},
		{Params{Program: "ping-pong", Procs: 2, Degree: 2}, StackParams{Variant: fd.DBRR, Cleanup: 1, TGossip: 4, MaxRounds: 6, Delta: 2}},
	} {
		m, err := NewStackModel(c.p, c.s)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		res := checker.Search(m.Model, checker.Options{Workers: 1, MaxStates: 3_000_000})
		t.Logf("%s: %d states complete=%v %v err=%v", m.Name(), res.States, res.Complete, time.Since(t0), res.Err)
		for _, v := range res.Violations {
			t.Logf("  %s after %d steps: %s", v.Violation.Property, len(v.Steps), v.Violation.Message)
		}
	}
}
