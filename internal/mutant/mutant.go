// Package mutant is the test-only switch for deliberately broken protocol
// variants. It is internal to the module: tests and cmd/ftcheck can turn a
// mutant on, but an embedding program cannot import this package, so it can
// never run a broken protocol by accident.
package mutant

// Name names one broken variant of a protocol, such as "no-grandchildren".
// The empty Name is the correct protocol.
type Name string

// None is the correct protocol.
const None Name = ""
