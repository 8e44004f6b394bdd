package modeltest

import "testing"

// ErrCounter is a testing.TB that counts Errorf calls instead of failing,
// for tests that show a check fails a planted wrong input (its other
// methods are the wrapped TB's).
type ErrCounter struct {
	testing.TB
	Errs int
}

// Errorf counts the call.
func (r *ErrCounter) Errorf(string, ...any) { r.Errs++ }

// Helper does nothing.
func (r *ErrCounter) Helper() {}
