// Package ownprotocol shows, in its Example, how another module checks its
// own protocol with ftkernel's library: the protocol's node is a
// core.Machine (here a ping that waits for an echo from every other
// process), env.New runs N nodes in an asynchronous network with crashes
// and a perfect failure detector, props.Termination is the property, and
// checker.BFS explores every interleaving. A variant that ignores the
// failure detector is caught, with a shortest counterexample.
//
// The package has no code of its own: read example_test.go, or run it with
//
//	go test github.com/ftkernel/ftkernel/examples/ownprotocol -run Example -v
package ownprotocol
