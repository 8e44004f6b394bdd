package era

import "github.com/ftkernel/ftkernel/models/internal/modeltest"

// Test shorthands for the shared model-test drivers.
var (
	build     = modeltest.Build
	simulate  = modeltest.Simulate
	mustCatch = modeltest.MustCatch
)
