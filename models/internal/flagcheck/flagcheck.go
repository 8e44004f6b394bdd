// Package flagcheck checks the models' numeric flags against their
// documented ranges before anything is built from them, so that a size out
// of range is refused at once with one line instead of being allocated
// first.
package flagcheck

import (
	"fmt"
	"math"
)

// Range is an inclusive range lo … hi of an integer flag.
type Range struct{ Lo, Hi int64 }

// String is "lo … hi", or "lo …" when Hi is math.MaxInt64.
func (r Range) String() string {
	if r.Hi == math.MaxInt64 {
		return fmt.Sprintf("%d …", r.Lo)
	}
	return fmt.Sprintf("%d … %d", r.Lo, r.Hi)
}

// Int is the error of flag --name whose value v is outside [lo, hi], or
// nil: "--n 100000000: out of range 1 … 65536" and, when why is not empty,
// "…: why".
func Int(name string, v, lo, hi int64, why string) error {
	if v >= lo && v <= hi {
		return nil
	}
	msg := fmt.Sprintf("--%s %d: out of range %v", name, v, Range{lo, hi})
	if why != "" {
		msg += " (" + why + ")"
	}
	return fmt.Errorf("%s", msg)
}

// Uint is Int for an unsigned flag; hi is at most math.MaxInt64.
func Uint(name string, v uint64, lo, hi int64, why string) error {
	if v > math.MaxInt64 {
		return fmt.Errorf("--%s %d: out of range %v", name, v, Range{lo, hi})
	}
	return Int(name, int64(v), lo, hi, why)
}

// First returns the first non-nil error of errs.
func First(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
