package correction

import (
	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// Test shorthands for the shared model-test drivers.
var (
	build       = modeltest.Build
	simulate    = modeltest.Simulate
	mustCatch   = modeltest.MustCatch
	violatedSet = modeltest.ViolatedSet
)

// first is the first violation of v, or "none".
func first(v []*checker.Trace) string {
	if len(v) == 0 {
		return "none"
	}
	return v[0].Violation.String()
}
