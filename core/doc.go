// Package core is the contract shared by every ftkernel protocol: process
// ranks, messages, events, effects, the Machine interface and the canonical
// binary encoding that fingerprints, traces and fuzz corpora are built on.
//
// # The Machine contract
//
// A protocol node is a deterministic state machine. Its runtime (a model
// checker, a simulator, or an embedder's MPI-like library) owns the node and
// feeds it one Event at a time with Step(ev, out), which returns out with
// the step's effects appended. Step changes the node's state and appends the effects of the step: messages
// to send (EffSend), values decided (EffDecide), values returned to the
// caller (EffReturn), deliveries to the application (EffDeliver), and so on.
// The runtime carries them out: it moves messages, runs timers and reports
// failures. The machine itself has no goroutines, clocks, randomness, I/O, or
// iteration over Go maps whose order could leak into its output, so the next
// state and the effects are a function of the previous state and the event
// alone. A runtime that needs to keep the previous state calls Clone first.
//
// Step returns an error, and leaves the state unchanged, when the event is
// impossible for this machine (a message of another protocol, a rank out of
// range, a call made twice). It never panics on such input.
//
// # Canonical encoding
//
// Every state, message, input and value appends a canonical binary encoding
// (AppendBinary): two values are equal exactly when their encodings are equal.
// Sets are encoded in ascending order and maps by ascending key. Fingerprint
// hashes an encoding to the 64 bits the checker keeps in its visited set.
// Each protocol package provides decoders that reject malformed bytes with an
// error; Decoder is the shared reader they are built on.
//
// # Embedding
//
// A runtime embeds a machine by calling Step from one goroutine per node (or
// under a lock), sending every EffSend message with its transport, reporting
// every peer its failure detector suspects as an EvSuspect event, and giving
// every received message back as an EvReceive event. Nothing else is needed:
// a package under statemachine/ imports only this package and the standard
// library. The package Example is such a runtime, run by go test: calls,
// deliveries, a fired timer and a suspicion driving a toy coordinator
// protocol.
package core
