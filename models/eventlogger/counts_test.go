package eventlogger

import (
	"testing"

	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// TestTable51 pins the counts the machines' runs give for Table 5.1's
// best case (a quorum of acceptors; Parallel's coordinator-acceptor
// co-located), f = 1, 2, 3, with 2 application processes: the thesis's
// steps and messages (2, 2; 4, 2f+2; 2, 2f) and nodes (n+1; n+f+1; n+f),
// and what the machines send besides (Classic's learners' notices, f²).
func TestTable51(t *testing.T) {
	const n = 2
	for f := 1; f <= 3; f++ {
		for _, tc := range []struct {
			k                 el.Kind
			steps, msgs, sent float64
			nodes             int
		}{
			{el.Centralized, 2, 2, 2, n + 1},
			{el.Classic, 4, float64(2*f + 2), float64(2*f + 2 + f*f), n + f + 1},
			{el.Parallel, 2, float64(2 * f), float64(2 * f), n + f},
		} {
			c, err := Count(CountParams{Kind: tc.k, F: f, Procs: n, Dets: 2})
			if err != nil {
				t.Fatal(tc.k, f, err)
			}
			if c.Steps != tc.steps || c.Messages != tc.msgs || c.Sent != tc.sent || c.Nodes != tc.nodes {
				t.Errorf("%v f=%d: steps %g messages %g sent %g nodes %d, want %g %g %g %d",
					tc.k, f, c.Steps, c.Messages, c.Sent, c.Nodes, tc.steps, tc.msgs, tc.sent, tc.nodes)
			}
		}
	}
}

func TestCountsPrint(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	for _, cp := range []CountParams{
		{Kind: el.Classic, Experimental: true}, {Kind: el.Classic, Experimental: true, AllAcceptors: true},
		{Kind: el.Classic, Experimental: true, SeparateLearners: true}, {Kind: el.Classic, Experimental: true, SeparateLearners: true, AllAcceptors: true},
		{Kind: el.Parallel, Experimental: true}, {Kind: el.Parallel, Experimental: true, AllAcceptors: true},
		{Kind: el.Classic, FailAcceptor: true}, {Kind: el.Parallel, FailAcceptor: true}, {Kind: el.Classic, CoordinatorChange: true},
	} {
		cp.F, cp.Procs, cp.Dets = 1, 2, 2
		c, err := Count(cp)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v: %+v %s", cp, c, c.KindsString())
	}
}
