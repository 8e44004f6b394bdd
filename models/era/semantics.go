package era

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// The semantics of MPIX_Comm_agree (SC'15 §1.1), written once more for the
// properties, plainly and without statemachine/era's Op, so that a wrong
// combine in the machine cannot hide behind the same code in its checker:
//
//	"all living processes agree to set the output integer value to the
//	result of a bitwise 'AND' operation over the contributed input values"
//
// and agree on "a group of processes that have failed to contribute to
// the output value, and the associated action of raising an exception if
// members of that group have not been acknowledged by all participants".
// So, over the set C of contributions that went into a decision:
//
//	flag   = AND of the flags of C
//	failed = the failures named by any member of C (each contributor
//	         reports the failures it knows; the group is their union)
//	acked  = the failures acknowledged by every member of C (their
//	         intersection: "acknowledged by all participants")
//
// and the decision raises PROC_FAILED when failed ⊄ acked. Plain AND values
// (erasm.Flag) are the integer alone.

// agreedOn is the value §1.1 agrees on over the contributions a and b (nil
// is no contribution). Values of two different kinds give invalidValue,
// which equals nothing.
func agreedOn(a, b core.Value) core.Value {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	switch x := a.(type) {
	case erasm.Flag:
		if y, ok := b.(erasm.Flag); ok {
			return erasm.Flag(uint64(x) & uint64(y))
		}
	case erasm.Contribution:
		if y, ok := b.(erasm.Contribution); ok {
			var failed, acked core.RankSet
			x.Failed.Each(func(q core.Rank) { failed.Add(q) })
			y.Failed.Each(func(q core.Rank) { failed.Add(q) })
			x.Acked.Each(func(q core.Rank) {
				if y.Acked.Has(q) {
					acked.Add(q)
				}
			})
			return erasm.Contribution{Flag: x.Flag & y.Flag, Failed: failed, Acked: acked}
		}
	}
	return invalidValue{a, b}
}

// includes reports whether the decided value v can have contribution c in
// its C, that is, adding c to C leaves v as it is: every bit of v's flag
// is set in c's, every failure c names is in v's group, and every failure
// v counts as acknowledged c acknowledged.
func includes(v, c core.Value) bool {
	switch x := v.(type) {
	case erasm.Flag:
		y, ok := c.(erasm.Flag)
		return ok && uint64(x)&uint64(y) == uint64(x)
	case erasm.Contribution:
		y, ok := c.(erasm.Contribution)
		if !ok || x.Flag&y.Flag != x.Flag {
			return false
		}
		in := true
		y.Failed.Each(func(q core.Rank) { in = in && x.Failed.Has(q) })
		x.Acked.Each(func(q core.Rank) { in = in && y.Acked.Has(q) })
		return in
	}
	return false
}

// raisesProcFailed is §1.1's exception of a decided value: a failure of
// the agreed group that is not acknowledged by all participants.
func raisesProcFailed(v erasm.Contribution) bool {
	raised := false
	v.Failed.Each(func(q core.Rank) { raised = raised || !v.Acked.Has(q) })
	return raised
}

// invalidValue is agreedOn of two values of different kinds.
type invalidValue struct{ a, b core.Value }

// AppendBinary appends a marker no ERA value starts with, then both values.
func (v invalidValue) AppendBinary(b []byte) []byte {
	b = append(b, 0xff, 0xff)
	return v.b.AppendBinary(v.a.AppendBinary(b))
}

// String names both values.
func (v invalidValue) String() string { return fmt.Sprintf("invalid(%v, %v)", v.a, v.b) }
