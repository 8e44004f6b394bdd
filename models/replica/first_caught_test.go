package replica

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	"github.com/ftkernel/ftkernel/registry"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// firstCase is one line of firstCaught.
type firstCase struct {
	property, mutant, args string
	steps                  int
	sameState              string
	// long: the correct protocol's run of this model (a complete search
	// of docs/replica.md's exhaustive table) takes tens of seconds, so it
	// is repeated here only with FTKERNEL_LONG=1.
	long bool
}

// firstCaught gives, for every property of the perfect-detector model, a
// mutant whose shortest counterexample (breadth-first, the checker's own
// property order) violates that property first, with the ftcheck flags of
// the model, the counterexample's length and the other properties that
// fail in its last state too (sameState, sorted, comma-separated; computed
// by replaying the trace and checking every property there). The lengths
// come from the searches of TestFirstCaught (and `ftcheck check replica
// ARGS --mutant MUTANT`), not from hand counting.
var firstCaught = []firstCase{
	// The new master keeps its backup: P1 never gets the ping (and the
	// backup is not drained either).
	{Validity, string(sm.MutantNoBackupResend), "--program ping-pong --procs 2 --degree 2 --replicate-rank0 --crashes 1", 7, BackupDrained, false},
	// The old master's DATA reached p2 only; the new master's re-send has
	// MID (1,0,1,0,0): p2 delivers the original and keeps the re-send
	// queued (not a duplicate in its history), p3 delivers the re-send.
	{Agreement, string(sm.MutantResendOwnMID), "--program gather-sum --procs 2 --degree 2 --replicate-rank0 --crashes 1", 12, QueueDrained, false},
	// A re-sent ping arrives while the original is queued; both are
	// queued (history at delivery) and the second Recv from P0 extracts
	// the smallest MID: the duplicate.
	{Integrity, string(sm.MutantLiteralReception), "--program ping-pong --procs 2 --degree 2 --replicate-rank0 --rounds 2 --crashes 1", 9, "", true},
	// P2's replicas take P0's and P1's values in opposite orders; the sum,
	// hence the output, is the same.
	// (With --crashes 1, the bound of the exhaustive table, the same 10
	// steps; see docs/replica.md.)
	{TotalOrder, string(sm.MutantRecvIgnoresSource), "--program gather-sum --procs 3 --degree 2 --crashes 0", 10, "", false},
	// Unordered channels: (0,0,2,9,1) arrives first and is delivered.
	{Equivalence, string(sm.MutantArrivalOrderDelivery), "--program mid-example --procs 3 --degree 2 --crashes 0 --network unordered", 6, "", false},
	// P1's master crashes after committing to p2 only: p2, the new master,
	// has nothing in its backup, and p3 keeps the entry.
	{BackupDrained, string(sm.MutantNoLogRecommit), "--program ping-pong --procs 2 --degree 3 --crashes 1", 16, "", false},
	// A re-sent duplicate is queued and never delivered.
	{QueueDrained, string(sm.MutantHistoryNotConsulted), "--program ping-pong --procs 2 --degree 2 --replicate-rank0 --crashes 1", 15, "", false},
	// Every replica sends: 4 DATA and 2 COMMIT instead of 2 and 1.
	{SendCost, string(sm.MutantNonMasterSends), "--program gather-sum --procs 2 --degree 2 --replicate-rank0 --crashes 0", 14, "", false},
	// Both sends get (0,0,2,9,0); unordered, p3 gets the second first and
	// p4 the first: one MID, payloads 2 and 1.
	{PayloadAgreement, string(sm.MutantMIDWithoutTime), "--program mid-example --procs 3 --degree 2 --crashes 0 --network unordered", 7, "", false},
}

// TestFirstCaught: each mutant's shortest counterexample first violates
// its property after the pinned number of steps and replays to it, the
// other properties failing in its last state are the pinned ones, and the
// correct protocol passes the same model.
func TestFirstCaught(t *testing.T) {
	correct := map[string]bool{} // models the correct protocol passed
	for _, c := range firstCaught {
		t.Run(c.property, func(t *testing.T) {
			args := strings.Fields(c.args)
			r := modeltest.Build(t, "replica", append(slices.Clone(args), "--mutant", c.mutant)...)
			res, tr := modeltest.MustCatch(t, r, c.property, c.steps)
			t.Logf("ftcheck check replica %s --mutant %s: %s after %d steps, %d states: %s",
				c.args, c.mutant, c.property, len(tr.Steps), res.States, tr.Violation.Message)
			m, _ := registry.EnvModel(r)
			if got := strings.Join(violatedAtEnd(t, m, tr, c.property), ","); got != c.sameState {
				t.Errorf("also violated in the last state: %q, want %q", got, c.sameState)
			}
			if c.long && os.Getenv("FTKERNEL_LONG") != "1" {
				t.Logf("the correct protocol's run of this model: FTKERNEL_LONG=1")
				return
			}
			if correct[c.args] {
				return
			}
			ok := modeltest.Build(t, "replica", args...).BFS(checker.Options{})
			if len(ok.Violations) > 0 || !ok.Complete {
				t.Fatalf("the correct protocol fails the same model (complete=%v): %v", ok.Complete, ok.Violations)
			}
			correct[c.args] = true
		})
	}
}

// TestFirstCaughtCoversEveryProperty: every property of the model is the
// first violation of some mutant in firstCaught, and every mutant there is
// one of sm.Mutants.
func TestFirstCaughtCoversEveryProperty(t *testing.T) {
	for _, p := range Properties(sm.Layout{}, nil, nil) {
		if !slices.ContainsFunc(firstCaught, func(c firstCase) bool { return c.property == p.Name }) {
			t.Errorf("no mutant is first caught by %s", p.Name)
		}
	}
	for _, c := range firstCaught {
		if !slices.Contains(sm.Mutants, mutantName(c.mutant)) {
			t.Errorf("%s: unknown mutant %s", c.property, c.mutant)
		}
	}
}

// violatedAtEnd replays tr on m and lists, in model order, the properties
// other than first that fail in its last state (quiescence ones only if
// that state is quiescent).
func violatedAtEnd(t *testing.T, m *env.Model, tr *checker.Trace, first string) []string {
	t.Helper()
	states, err := checker.Replay[*env.World](m, tr)
	var ve *checker.ViolationError
	if !errors.As(err, &ve) {
		t.Fatalf("replay: %v", err)
	}
	s := states[len(states)-1]
	var out []string
	for _, p := range m.Properties() {
		if p.Name == first || p.Check == nil || p.Kind == checker.Quiescence && !m.Quiescent(s) {
			continue
		}
		if p.Kind != checker.Invariant && p.Kind != checker.Quiescence {
			continue
		}
		if p.Check(s) != nil {
			out = append(out, p.Name)
		}
	}
	return out
}
