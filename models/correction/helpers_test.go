package correction

import (
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// Test shorthands for the shared model-test drivers.
var (
	build     = modeltest.Build
	simulate  = modeltest.Simulate
	mustCatch = modeltest.MustCatch
)

// first is the first violation of v, or "none".
func first(v []*checker.Trace) string {
	if len(v) == 0 {
		return "none"
	}
	return v[0].Violation.String()
}

// violatedSet lists the properties r's violations break, sorted, joined
// by commas.
func violatedSet(r *checker.Result) string {
	var names []string
	for _, tr := range r.Violations {
		names = append(names, tr.Violation.Property)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}
