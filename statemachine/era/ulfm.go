package era

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// ULFM is the operation of MPIX_Comm_agree (§1.1) over Contribution values:
// the AND of the flags, the union of the failures known, and the
// intersection of the failures acknowledged. The decision raises
// PROC_FAILED (Contribution.Err) when a failure in the agreed set was not
// acknowledged by every contributor.
var ULFM Op = ulfmOp{}

// Contribution is a process's input to MPIX_Comm_agree, and the decision.
type Contribution struct {
	// Flag is the integer combined by bitwise AND.
	Flag uint64
	// Failed is the set of failed processes: those the contributor knows
	// dead; in a decision, the union over the contributors.
	Failed core.RankSet
	// Acked is the set of failures acknowledged (MPIX_Comm_failure_ack); in
	// a decision, the intersection over the contributors.
	Acked core.RankSet
}

// NewContribution builds process's contribution from its flag, the failures
// it knows and those it has acknowledged. The sets are copied.
func NewContribution(flag uint64, known, acked core.RankSet) Contribution {
	return Contribution{Flag: flag, Failed: known.Clone(), Acked: acked.Clone()}
}

// Err reports MPIX_Comm_agree's PROC_FAILED: some failure in the agreed set
// is not acknowledged by all contributors (Failed ⊄ Acked).
func (c Contribution) Err() bool { return !c.Failed.SubsetOf(c.Acked) }

// AppendBinary appends the flag, then Failed and Acked.
func (c Contribution) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, c.Flag)
	b = c.Failed.AppendBinary(b)
	return c.Acked.AppendBinary(b)
}

// String formats the contribution, e.g. "ulfm(0x1 failed={p2} acked={})".
func (c Contribution) String() string {
	return fmt.Sprintf("ulfm(%#x failed=%v acked=%v)", c.Flag, c.Failed, c.Acked)
}

type ulfmOp struct{}

func (ulfmOp) Name() string { return "ulfm" }

func (ulfmOp) Combine(a, b Value) Value {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	x, okx := a.(Contribution)
	y, oky := b.(Contribution)
	if !okx || !oky {
		return a // outside Check's domain; keep Combine total
	}
	return Contribution{
		Flag:   x.Flag & y.Flag,
		Failed: x.Failed.Union(y.Failed),
		Acked:  x.Acked.Intersect(y.Acked),
	}
}

func (ulfmOp) Check(v Value, n int) error {
	c, ok := v.(Contribution)
	if !ok {
		return fmt.Errorf("era: value %v (%T) is not a ulfm Contribution", v, v)
	}
	if !ranksBelow(c.Failed, n) || !ranksBelow(c.Acked, n) {
		return fmt.Errorf("era: contribution %v names a rank ≥ %d", c, n)
	}
	return nil
}

func (ulfmOp) Decode(d *core.Decoder) (Value, error) {
	var c Contribution
	c.Flag = d.Uint()
	c.Failed = core.DecodeRankSet(d, MaxN)
	c.Acked = core.DecodeRankSet(d, MaxN)
	if err := d.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// ranksBelow reports whether every member of s is below n.
func ranksBelow(s core.RankSet, n int) bool {
	ok := true
	s.Each(func(r core.Rank) { ok = ok && int(r) < n })
	return ok
}
