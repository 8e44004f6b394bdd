package msglog

import (
	"errors"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// TestSequenceGapDropped replays testdata/keep_sequence_gap.json, the
// shrunk counterexample `ftcheck check msglog --crashes 2 --recoveries 2
// --mutant keep-sequence-gap --dfs --shrink` prints (30 steps): P0
// crashes, restarts, replays m1 and sends m3, crashes again and restarts
// before P1 is told of its first restart; P1, delivering m3, sends m5
// normally, and m5 (seq 2) reaches P0's third incarnation before the
// re-sent m1 (seq 1). Kept (the mutant), P0's explicit receive from P1
// takes m5 at the operation where its earlier incarnations took m1
// (recovery-faithful). Dropped (the rule), the same 30 steps break no
// property: m5 comes again behind m1 on P0's RESEND_FROM.
func TestSequenceGapDropped(t *testing.T) {
	tr, err := checker.ReadTraceFile("testdata/keep_sequence_gap.json")
	if err != nil {
		t.Fatal(err)
	}
	p := Params{Program: "fig51", Procs: 3, Logger: el.Centralized, Crashes: 2, Recoveries: 2, Mutant: ml.MutantKeepSequenceGap}
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	states, err := checker.Replay(m, tr)
	var ve *checker.ViolationError
	if !errors.As(err, &ve) || ve.Violation.Property != Faithful || len(states) != len(tr.Steps)+1 {
		t.Fatalf("the mutant: %v after %d states, want %s after step %d", err, len(states)-1, Faithful, len(tr.Steps))
	}
	p.Mutant = ""
	if m, err = NewModel(p); err != nil {
		t.Fatal(err)
	}
	tr.Violation = nil // check every property
	if _, err := checker.Replay(m, tr); err != nil {
		t.Fatalf("the rule: %v", err)
	}
}
