package era

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

func set(rs ...core.Rank) core.RankSet {
	var s core.RankSet
	for _, r := range rs {
		s.Add(r)
	}
	return s
}

// TestSemanticsByHand: §1.1's agreed value on contributions worked out by
// hand: AND of the flags, union of the failures, intersection of the
// acknowledgements; PROC_FAILED when a failure is not acknowledged by all.
func TestSemanticsByHand(t *testing.T) {
	a := erasm.Contribution{Flag: 0b110, Failed: set(3), Acked: set(3, 4)}
	b := erasm.Contribution{Flag: 0b011, Failed: set(4), Acked: set(4)}
	got := agreedOn(a, b).(erasm.Contribution)
	if got.Flag != 0b010 || got.Failed.String() != "{p3,p4}" || got.Acked.String() != "{p4}" {
		t.Fatalf("agreedOn = %v, want ulfm(0x2 failed={p3,p4} acked={p4})", got)
	}
	if !raisesProcFailed(got) {
		t.Error("p3 failed and is not acknowledged by b: want PROC_FAILED")
	}
	if !includes(got, a) || !includes(got, b) {
		t.Error("the agreed value includes both contributions")
	}
	if includes(a, b) {
		t.Error("a does not include b (b's flag clears bit 2 of a)")
	}
	if got := agreedOn(erasm.Flag(6), erasm.Flag(3)); got != erasm.Flag(2) {
		t.Errorf("AND of 0x6 and 0x3 = %v", got)
	}
	if _, ok := agreedOn(erasm.Flag(1), a).(invalidValue); !ok {
		t.Error("values of two kinds must not combine")
	}
}

// TestValidityCatchesUnitedAcks: a node that unites acknowledged failures
// (ulfm-union-acked) is caught by validity alone, whose oracle is
// semantics.go, not statemachine/era's Op; the correct protocol holds.
func TestValidityCatchesUnitedAcks(t *testing.T) {
	args := []string{"--n", "3", "--crashes", "1", "--op", "ulfm", "--values", "1"}
	only := checker.Options{Properties: []string{Validity}}
	bad := build(t, "era", append(args, "--mutant", string(erasm.MutantULFMUnionAcked))...).BFS(only)
	if len(bad.Violations) == 0 {
		t.Fatalf("validity missed united acknowledgements (%d states)", bad.States)
	}
	if msg := bad.Violations[0].Violation.String(); !strings.Contains(msg, "acked") {
		t.Errorf("violation does not show the acknowledged sets: %s", msg)
	}
	good := build(t, "era", args...).BFS(only)
	if !good.Complete || len(good.Violations) > 0 {
		t.Fatalf("correct ERA: complete=%v %v", good.Complete, first(good.Violations))
	}
}
