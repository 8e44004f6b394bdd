// Package forgettest checks the part of the contract of env.Forgetter
// (checker/env/forget.go) that every protocol's Forget shares, for the
// protocols' own tests (statemachine/*/forget_test.go); what each Forget
// keeps and resets is the protocol's to check.
package forgettest

import (
	"bytes"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Check forgets n and returns the forgotten node, or the first broken
// clause of the contract as an error: Forget returns a node of n's type,
// leaves n's encoding unchanged, decode reads the forgotten node's
// encoding back to a node diff finds equal ("" for equal), and Forget of
// the forgotten node encodes as the forgotten node (idempotence).
func Check[N interface {
	core.Machine
	Forget() core.Machine
}](n N, decode func([]byte) (N, error), diff func(forgotten, decoded N) string) (N, error) {
	var zero N
	before := n.AppendBinary(nil)
	f, ok := n.Forget().(N)
	if !ok {
		return zero, fmt.Errorf("forgettest: Forget of %v is not a %T", n, n)
	}
	if !bytes.Equal(n.AppendBinary(nil), before) {
		return zero, fmt.Errorf("forgettest: Forget changed its receiver %v", n)
	}
	b := f.AppendBinary(nil)
	d, err := decode(b)
	if err != nil {
		return zero, fmt.Errorf("forgettest: Forget of %v does not decode: %w", n, err)
	}
	if s := diff(f, d); s != "" {
		return zero, fmt.Errorf("forgettest: Forget of %v: round trip differs (-forgotten +decoded):\n%s", n, s)
	}
	if !bytes.Equal(f.Forget().AppendBinary(nil), b) {
		return zero, fmt.Errorf("forgettest: Forget is not idempotent on %v", n)
	}
	return f, nil
}
