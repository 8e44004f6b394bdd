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
// # Events and effects
//
// A runtime steps a node with one event of these kinds (Event.Kind), each
// made by its constructor:
//
//	EvReceive  Receive(from, m)  message m from rank from arrived
//	EvCall     Call(in)          the local application called in with in
//	EvSuspect  Suspect(q)        the failure detector reports rank q dead
//	EvTimer    Timer(id)         timer id, armed by an EffSetTimer, fired
//	EvRestart  Restart()         the node restarted from its stable storage (Recoverable) after a crash
//	EvRecovered Recovered(q)     the failure detector reports that rank q, reported dead, restarted
//
// and carries out each effect of the step (Effect.Kind), in order:
//
//	EffSend      Send(to, m)                     send m to rank to (the node itself included)
//	EffDecide    Decide(a, v)                    record that the node decided v for instance a
//	EffReturn    Return(a, v)                    complete the application's call for instance a with v
//	EffDeliver   Deliver(a, v)                   hand v to the application for instance a
//	EffSuspect   Effect{…, Peer: q}              the node, a detector, now suspects q: tell its application
//	EffSetTimer  Effect{…, Timer: id, Delay: d}  arm timer id to fire (EvTimer) after d time units
//
// # Crash and recovery
//
// A node that implements Recoverable may restart after a crash. The
// runtime replaces the crashed node by its Recover(), which keeps what the
// node declares stable (its stable storage) and resets everything else,
// and steps it with Restart(); messages sent to the node while it was down
// are lost, and its timers are disarmed. The failure detector that
// reported the crash to a peer (EvSuspect) then reports the restart to it
// (EvRecovered).
//
// # Returning is not leaving
//
// EffReturn ends one call, not the node's part in the protocol. After it
// the runtime keeps stepping the node as before: it gives it every message
// sent to it (EvReceive), every failure its detector reports (EvSuspect)
// and every timer that fires (EvTimer), and carries out the effects of
// these steps, sends included. Other nodes may still need it: a node of
// statemachine/era keeps the result of agreement a after Agreement(·, a)
// returned, and answers a RESULTREQUEST(a) from a new root, sent after a
// crash, with DOWN(a, result); without that answer the new root, and every
// process waiting for its decision, never decides. A runtime stops stepping a node
// only when it shuts the whole group down, once no member can still send
// to it or wait on it. A node stopped earlier is, to its peers, a crashed
// node: the runtime must then report it to them as one (EvSuspect), and
// only within the crashes the protocol tolerates.
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
