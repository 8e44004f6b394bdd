package era

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

func randomContribution(r *rand.Rand) Value {
	if r.IntN(8) == 0 {
		return nil // ⊥
	}
	var known, acked core.RankSet
	for q := range core.Rank(10) {
		if r.IntN(3) == 0 {
			known.Add(q)
		}
		if r.IntN(3) == 0 {
			acked.Add(q)
		}
	}
	return NewContribution(r.Uint64()|r.Uint64(), known, acked)
}

func randomFlag(r *rand.Rand) Value {
	if r.IntN(8) == 0 {
		return nil
	}
	return Flag(r.Uint64() | r.Uint64())
}

func same(a, b Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return bytes.Equal(a.AppendBinary(nil), b.AppendBinary(nil))
}

// TestOpsAreIdempotentCommutativeMonoids checks §2's requirement on F:
// associative, commutative, idempotent, with identity ⊥.
func TestOpsAreIdempotentCommutativeMonoids(t *testing.T) {
	for _, tc := range []struct {
		op   Op
		rand func(*rand.Rand) Value
	}{{And, randomFlag}, {ULFM, randomContribution}} {
		r := rand.New(rand.NewPCG(3, 4))
		F := tc.op.Combine
		for range 2000 {
			a, b, c := tc.rand(r), tc.rand(r), tc.rand(r)
			if !same(F(a, F(b, c)), F(F(a, b), c)) {
				t.Fatalf("%s not associative: %v %v %v", tc.op.Name(), a, b, c)
			}
			if !same(F(a, b), F(b, a)) {
				t.Fatalf("%s not commutative: %v %v", tc.op.Name(), a, b)
			}
			if !same(F(a, a), a) {
				t.Fatalf("%s not idempotent: %v", tc.op.Name(), a)
			}
			if !same(F(a, nil), a) || !same(F(nil, a), a) {
				t.Fatalf("%s: ⊥ is not the identity for %v", tc.op.Name(), a)
			}
		}
	}
}

// TestULFMDecisionSemantics checks §1.1: AND of the flags, union of the
// failures, PROC_FAILED unless every failure was acknowledged by everyone.
func TestULFMDecisionSemantics(t *testing.T) {
	set := func(rs ...core.Rank) core.RankSet {
		var s core.RankSet
		for _, r := range rs {
			s.Add(r)
		}
		return s
	}
	// Everyone knows and acknowledged p3: no exception.
	a := NewContribution(0b110, set(3), set(3))
	b := NewContribution(0b011, set(3), set(3))
	d := ULFM.Combine(a, b).(Contribution)
	if d.Flag != 0b010 || d.Failed.String() != "{p3}" || d.Err() {
		t.Fatalf("got %v err=%v, want flag 0b10, failed {p3}, no error", d, d.Err())
	}
	// b has not acknowledged p5, which a knows about: PROC_FAILED.
	a = NewContribution(1, set(3, 5), set(3, 5))
	b = NewContribution(1, set(3), set(3))
	if d := ULFM.Combine(a, b).(Contribution); !d.Err() || d.Failed.String() != "{p3,p5}" {
		t.Fatalf("got %v err=%v, want failed {p3,p5} and an error", d, d.Err())
	}
	// The helper copies its sets.
	k := set(1)
	c := NewContribution(0, k, k)
	k.Add(2)
	if c.Failed.Has(2) || c.Acked.Has(2) {
		t.Fatal("NewContribution shares its sets")
	}
}

// TestOpCheckRejectsForeignValues: a value of another Op, or naming a rank
// out of range, is rejected.
func TestOpCheckRejectsForeignValues(t *testing.T) {
	if And.Check(NewContribution(1, core.RankSet{}, core.RankSet{}), 4) == nil {
		t.Error("And accepted a Contribution")
	}
	if ULFM.Check(Flag(1), 4) == nil {
		t.Error("ULFM accepted a Flag")
	}
	var big core.RankSet
	big.Add(4)
	if ULFM.Check(NewContribution(1, big, core.RankSet{}), 4) == nil {
		t.Error("ULFM accepted rank p4 with N=4")
	}
	if ULFM.Check(NewContribution(1, big, core.RankSet{}), 5) != nil {
		t.Error("ULFM rejected rank p4 with N=5")
	}
}
