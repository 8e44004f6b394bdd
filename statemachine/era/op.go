package era

import (
	"fmt"
	"strconv"

	"github.com/ftkernel/ftkernel/core"
)

// Value is an element of 𝒞, the set of agreement values. ⊥ is the nil
// Value. Values are immutable: Combine never changes its arguments.
type Value = core.Value

// Op is the combine operation F of §2: associative, commutative and
// idempotent, with identity ⊥ (nil).
type Op interface {
	// Name identifies the operation, e.g. "and".
	Name() string
	// Combine is F(a, b). Either may be ⊥ (nil). Both must satisfy Check.
	Combine(a, b Value) Value
	// Check reports an error unless v is a non-⊥ value of this operation
	// whose ranks, if any, are below n.
	Check(v Value, n int) error
	// Decode reads one non-⊥ value written by its AppendBinary.
	Decode(d *core.Decoder) (Value, error)
}

// And is the default operation: bitwise AND of Flag values, as the integer
// of MPIX_Comm_agree (§1.1).
var And Op = andOp{}

// Flag is the value of And: a 64-bit flag word.
type Flag uint64

// AppendBinary appends the flag as a uvarint.
func (f Flag) AppendBinary(b []byte) []byte { return core.AppendUint(b, uint64(f)) }

// String formats the flag in hexadecimal, e.g. "0x3".
func (f Flag) String() string { return "0x" + strconv.FormatUint(uint64(f), 16) }

type andOp struct{}

func (andOp) Name() string { return "and" }

func (andOp) Combine(a, b Value) Value {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	x, okx := a.(Flag)
	y, oky := b.(Flag)
	if !okx || !oky {
		return a // outside Check's domain; keep Combine total
	}
	return x & y
}

func (andOp) Check(v Value, _ int) error {
	if _, ok := v.(Flag); !ok {
		return fmt.Errorf("era: value %v (%T) is not an and Flag", v, v)
	}
	return nil
}

func (andOp) Decode(d *core.Decoder) (Value, error) {
	x := d.Uint()
	if err := d.Err(); err != nil {
		return nil, err
	}
	return Flag(x), nil
}
