package linearize

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/google/go-cmp/cmp"
)

// enc is the canonical encoding of a uint64 flag word used by these tests.
func enc(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func dec(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, errors.New("not 8 bytes")
	}
	return binary.BigEndian.Uint64(b), nil
}

// and is ERA's default F: bitwise AND over uint64 flags.
func and(a, b []byte) ([]byte, error) {
	x, err := dec(a)
	if err != nil {
		return nil, err
	}
	y, err := dec(b)
	if err != nil {
		return nil, err
	}
	return enc(x & y), nil
}

func describe(b []byte) string {
	v, err := dec(b)
	if err != nil {
		return "?"
	}
	return "0b" + strconv.FormatUint(v, 2)
}

// builder appends events with consecutive steps.
type builder struct{ h History }

func (b *builder) call(p int, inst uint64, v uint64) *builder {
	b.h = append(b.h, Event{Kind: Call, Process: p, Instance: inst, Value: enc(v), Step: len(b.h)})
	return b
}

func (b *builder) ret(p int, inst uint64, v uint64) *builder {
	b.h = append(b.h, Event{Kind: Return, Process: p, Instance: inst, Value: enc(v), Step: len(b.h)})
	return b
}

func check(t *testing.T, h History) bool {
	t.Helper()
	ok, err := Check(h, and, describe, "")
	if err != nil {
		t.Fatalf("Check: unexpected error %v", err)
	}
	return ok
}

func TestLinearizableAllReturnAnd(t *testing.T) {
	b := new(builder).
		call(0, 7, 1).call(1, 7, 1).call(2, 7, 0).
		ret(1, 7, 0).ret(0, 7, 0).ret(2, 7, 0)
	if !check(t, b.h) {
		t.Fatal("contributions 1,1,0 all returning 0: want linearizable")
	}
}

func TestDisagreementRejectedAndVisualised(t *testing.T) {
	b := new(builder).
		call(0, 1, 1).call(1, 1, 1).call(2, 1, 0).
		ret(0, 1, 0).ret(1, 1, 1)
	// Each return alone is a legal decision: the failure is the disagreement.
	for _, keep := range []int{3, 4} {
		h := append(b.h[:3:3], b.h[keep])
		if !check(t, h) {
			t.Fatalf("only the return %+v: want linearizable", b.h[keep])
		}
	}
	html := filepath.Join(t.TempDir(), "agree.html")
	ok, err := Check(b.h, and, describe, html)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if ok {
		t.Fatal("returns 0 and 1 for one agreement: want not linearizable")
	}
	data, err := os.ReadFile(html)
	if err != nil {
		t.Fatalf("visualisation not written: %v", err)
	}
	if len(data) == 0 {
		t.Fatal("visualisation is empty")
	}
	if !strings.Contains(string(data), "agree(0b1)") {
		t.Error("visualisation does not use DescribeOperation")
	}
}

func TestNoVisualisationWhenLinearizable(t *testing.T) {
	html := filepath.Join(t.TempDir(), "agree.html")
	b := new(builder).call(0, 1, 1).ret(0, 1, 1)
	ok, err := Check(b.h, and, describe, html)
	if err != nil || !ok {
		t.Fatalf("Check = %v, %v; want true, nil", ok, err)
	}
	if _, err := os.Stat(html); !os.IsNotExist(err) {
		t.Fatalf("visualisation written for a linearizable history (stat err %v)", err)
	}
}

func TestReturnExcludingCallerRejected(t *testing.T) {
	// Another process contributed 1, so 1 is a valid decision for it; but
	// the caller contributed 0 and AND(1, 0) != 1.
	b := new(builder).call(0, 3, 1).call(1, 3, 0).ret(0, 3, 1)
	if !check(t, b.h) {
		t.Fatal("control: process 0 alone returning 1 should be linearizable")
	}
	b.ret(1, 3, 1)
	if check(t, b.h) {
		t.Fatal("contribution 0 returning 1 under AND: want rejected")
	}
	alone := new(builder).call(0, 3, 0).ret(0, 3, 1)
	if check(t, alone.h) {
		t.Fatal("single process contributing 0 and returning 1: want rejected")
	}
}

func TestValidityNeedsAJoinOfContributions(t *testing.T) {
	// 0b01 AND 0b10 = 0: no single contribution explains 0, the pair does.
	b := new(builder).call(0, 1, 0b01).call(1, 1, 0b10).ret(0, 1, 0).ret(1, 1, 0)
	if !check(t, b.h) {
		t.Fatal("0b01, 0b10 -> 0: want linearizable")
	}
	// 0b011 AND 0b101 = 0b001; 0 includes both contributions
	// (participation holds) but is the join of no subset of them.
	b = new(builder).call(0, 1, 0b011).call(1, 1, 0b101).ret(0, 1, 0).ret(1, 1, 0)
	if check(t, b.h) {
		t.Fatal("0b011, 0b101 -> 0: want rejected (decision made up)")
	}
	b = new(builder).call(0, 1, 0b011).call(1, 1, 0b101).ret(0, 1, 0b001).ret(1, 1, 0b001)
	if !check(t, b.h) {
		t.Fatal("0b011, 0b101 -> 0b001: want linearizable")
	}
}

func TestValidityRespectsRealTime(t *testing.T) {
	// Process 0 returns 0 before process 1 has contributed the 0 that
	// would explain it.
	late := new(builder).call(0, 1, 1).ret(0, 1, 0).call(1, 1, 0).ret(1, 1, 0)
	if check(t, late.h) {
		t.Fatal("decision 0 returned before any 0 was contributed: want rejected")
	}
	early := new(builder).call(0, 1, 1).call(1, 1, 0).ret(0, 1, 0).ret(1, 1, 0)
	if !check(t, early.h) {
		t.Fatal("same values with the 0 contributed first: want linearizable")
	}
}

func TestCallThatNeverReturns(t *testing.T) {
	// Process 2 contributes 0 and crashes; the others may decide with or
	// without its contribution.
	for _, d := range []uint64{0, 1} {
		b := new(builder).call(0, 1, 1).call(1, 1, 1).call(2, 1, 0).ret(0, 1, d).ret(1, 1, d)
		if !check(t, b.h) {
			t.Fatalf("crashed process, survivors decide %d: want linearizable", d)
		}
	}
	// It still does not license disagreement.
	b := new(builder).call(0, 1, 1).call(1, 1, 1).call(2, 1, 0).ret(0, 1, 0).ret(1, 1, 1)
	if check(t, b.h) {
		t.Fatal("crashed process, survivors disagree: want rejected")
	}
	// Only crashed callers.
	b = new(builder).call(0, 1, 1).call(1, 1, 0)
	if !check(t, b.h) {
		t.Fatal("no returns at all: want linearizable")
	}

	ops, err := Operations(new(builder).call(0, 1, 1).call(2, 1, 0).ret(0, 1, 1).h)
	if err != nil {
		t.Fatal(err)
	}
	pending := ops[1]
	if pending.Return != PendingReturn || pending.Output.(Output).Returned {
		t.Fatalf("pending operation = %+v; want Return %d and Returned false", pending, PendingReturn)
	}
}

func TestInstancesCheckedIndependently(t *testing.T) {
	// Interleaved agreements 1 and 2 over the same processes decide
	// different values: fine, since they are different objects.
	b := new(builder).
		call(0, 1, 0).call(0, 2, 1).call(1, 2, 1).call(1, 1, 1).
		ret(1, 2, 1).ret(0, 1, 0).ret(1, 1, 0).ret(0, 2, 1)
	if !check(t, b.h) {
		t.Fatal("two agreements deciding 0 and 1: want linearizable")
	}
	ops, err := Operations(b.h)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ConsensusModel(and, describe).Partition(ops)); got != 2 {
		t.Fatalf("partitions = %d; want 2", got)
	}
	// A violation in one agreement is found even though the other is fine.
	b.call(2, 2, 1).ret(2, 2, 0)
	if check(t, b.h) {
		t.Fatal("agreement 2 returns 1 and 0: want rejected")
	}
}

func TestMalformedHistories(t *testing.T) {
	c := func(p int, inst uint64, step int) Event {
		return Event{Kind: Call, Process: p, Instance: inst, Value: enc(1), Step: step}
	}
	r := func(p int, inst uint64, step int) Event {
		return Event{Kind: Return, Process: p, Instance: inst, Value: enc(1), Step: step}
	}
	tests := []struct {
		name string
		h    History
		want string
	}{
		{"return without call", History{c(0, 1, 0), r(1, 1, 1)}, "without a call"},
		{"return for another instance", History{c(0, 1, 0), r(0, 2, 1)}, "without a call"},
		{"second call", History{c(0, 1, 0), c(0, 1, 1)}, "second time"},
		{"call after return", History{c(0, 1, 0), r(0, 1, 1), c(0, 1, 2)}, "second time"},
		{"second return", History{c(0, 1, 0), r(0, 1, 1), r(0, 1, 2)}, "second time"},
		{"zero kind", History{{Process: 0, Instance: 1, Value: enc(1)}}, "invalid kind"},
		{"negative process", History{c(-1, 1, 0)}, "negative process"},
		{"steps decrease", History{c(0, 1, 5), r(0, 1, 4)}, "before the previous"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ops, err := Operations(tc.h)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Operations error = %v; want one containing %q", err, tc.want)
			}
			if ops != nil {
				t.Errorf("Operations returned %d operations with the error", len(ops))
			}
			ok, err := Check(tc.h, and, describe, "")
			if err == nil || ok {
				t.Fatalf("Check = %v, %v; want false and an error", ok, err)
			}
		})
	}
}

func TestCombineErrorReported(t *testing.T) {
	b := new(builder).call(0, 1, 1).ret(0, 1, 1)
	b.h[0].Value = []byte{1} // not a valid encoding for and
	ok, err := Check(b.h, and, describe, "")
	if err == nil || ok {
		t.Fatalf("Check = %v, %v; want false and an error", ok, err)
	}
	if _, err := Check(b.h, nil, describe, ""); err == nil {
		t.Fatal("nil Combine: want an error")
	}
}

func TestEmptyHistory(t *testing.T) {
	if !check(t, nil) {
		t.Fatal("empty history: want linearizable")
	}
}

func TestCheckTimeoutResult(t *testing.T) {
	b := new(builder).call(0, 1, 1).ret(0, 1, 0)
	res, err := CheckTimeout(b.h, and, describe, "", 0)
	if err != nil || res != porcupine.Illegal {
		t.Fatalf("CheckTimeout = %v, %v; want Illegal, nil", res, err)
	}
}

func TestOperationsAdapter(t *testing.T) {
	b := new(builder).
		call(0, 1, 0b11). // step 0
		call(1, 1, 0b01). // step 1
		ret(0, 1, 0b01).  // step 2
		call(2, 1, 0b10). // step 3, after process 0 returned
		call(1, 9, 0b11). // step 4, another instance
		ret(1, 1, 0b01)   // step 5
	ops, err := Operations(b.h)
	if err != nil {
		t.Fatal(err)
	}
	type view struct {
		Client       int
		Call, Return int64
		In           Input
		Out          Output
	}
	var got []view
	for _, op := range ops {
		got = append(got, view{op.ClientId, op.Call, op.Return, op.Input.(Input), op.Output.(Output)})
	}
	e := func(vs ...uint64) [][]byte {
		var out [][]byte
		for _, v := range vs {
			out = append(out, enc(v))
		}
		return out
	}
	want := []view{
		{0, 0, 2, Input{1, 0, enc(0b11), e(0b01, 0b11)}, Output{true, enc(0b01)}},
		{1, 1, 5, Input{1, 1, enc(0b01), e(0b01, 0b10, 0b11)}, Output{true, enc(0b01)}},
		{2, 3, PendingReturn, Input{1, 2, enc(0b10), e(0b01, 0b10, 0b11)}, Output{false, nil}},
		{1, 4, PendingReturn, Input{9, 1, enc(0b11), e(0b11)}, Output{false, nil}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Operations mismatch (-want +got):\n%s", diff)
	}
}
