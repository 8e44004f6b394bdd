package msglog

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// TestSurvivorRollbackCaught: BFS over Fig. 5.1's program (3 processes,
// one crash and its restart, the centralized logger) with the mutant
// survivor-rollback finds only-failed-rolls-back violated first, after 11
// steps: P0 crashes and restarts, P2 answers its RESEND_FROM by
// restoring its initial state and runs its program again.
func TestSurvivorRollbackCaught(t *testing.T) {
	m, err := NewModel(Params{Program: "fig51", Procs: 3, Logger: el.Centralized, Crashes: 1, Recoveries: 1, Mutant: MutantSurvivorRollback})
	if err != nil {
		t.Fatal(err)
	}
	res := checker.Search(m, checker.Options{MaxStates: 1 << 20, MaxMemory: 1 << 30})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(res.Violations) == 0 {
		t.Fatalf("no counterexample (%d states, complete=%v)", res.States, res.Complete)
	}
	v := res.Violations[0]
	if v.Violation.Property != OnlyFailedRollsBack || len(v.Steps) != 11 {
		t.Fatalf("%s after %d steps, want %s after 11", v.Violation.Property, len(v.Steps), OnlyFailedRollsBack)
	}
}

// TestOnlyFailedRollsBackHolds: random runs of the master/worker program
// with crashes and restarts, the correct protocol: only-failed-rolls-back
// (with every other invariant) holds at every step, and the crashed
// processes did roll back (the property is not vacuous).
func TestOnlyFailedRollsBackHolds(t *testing.T) {
	p := Params{Program: "masterworker", Procs: 4, Logger: el.Centralized, F: 1, Crashes: 3}
	cr, err := Campaign(p, 40, 0.05, false, 7)
	if err != nil {
		t.Fatal(err)
	}
	if cr.Violation != "" || cr.Restarts == 0 {
		t.Fatalf("run %d: %q; %d restarts", cr.Run, cr.Violation, cr.Restarts)
	}
	r, err := Simulate(Params{Program: "fig51", Procs: 3, Logger: el.Centralized, F: 1}, Crash{Rank: 1, K: 3}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := rollbacks(r.Final, 1); got != 1 || r.Violation != "" {
		t.Fatalf("fig51 1@3: p1 rolled back %d times (want 1), violation %q", got, r.Violation)
	}
}

// TestSurvivorRollbackDecoded: under the mutant, an application process
// decoded from its encoding is the mutant's machine again.
func TestSurvivorRollbackDecoded(t *testing.T) {
	p := Params{Program: "fig51", Procs: 3, Logger: el.Centralized, F: 1, Mutant: MutantSurvivorRollback}
	c, ec, err := p.Config()
	if err != nil {
		t.Fatal(err)
	}
	n, err := ml.New(0, c)
	if err != nil {
		t.Fatal(err)
	}
	x, err := mutantCodec(p.Mutant, codec(c, ec)).Node(n.AppendBinary(nil), 0, ec.N())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := x.(survivorRollback); !ok {
		t.Fatalf("decoded %T, want survivorRollback", x)
	}
}
