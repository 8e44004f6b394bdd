// Package netnode runs one core.Machine per OS process over TCP on the
// loopback interface: the thin runtime an embedder would otherwise write
// around a verified protocol node. It uses only the standard library and
// core.
//
// # The contract
//
// A Node owns one machine and steps it from a single goroutine, one event
// at a time, as core's "Events and effects" requires:
//
//   - a message that arrived from a peer (core.Receive), in the order the
//     peer sent it: one TCP connection per direction and pair is FIFO;
//   - a local call the application makes with Node.Call (core.Call);
//   - a timer the machine armed with EffSetTimer, fired after Delay times
//     Config.TimeUnit of real time (core.Timer);
//   - a failure its Detector reports (core.Suspect), at most once per peer.
//
// After each Step it writes the step's log line (a Record, one NDJSON line
// in Config.Trace) and flushes it to the operating system, and only then
// carries out the effects, in order: EffSend is framed and queued for the
// peer's connection (a send to the node itself comes back as an event),
// EffSetTimer arms a real-time timer (re-arming an armed id replaces it),
// and EffDecide, EffReturn, EffDeliver and EffSuspect go to
// Config.Outputs. A process killed by SIGKILL therefore never leaves a send
// that no log line records; at worst its last line is cut short, which
// readers of the log expect.
//
// Returning is not leaving (see core): the node keeps stepping messages,
// failures and timers after its calls returned, until the embedder cancels
// Run's context, which it should do only when it shuts the whole group
// down.
//
// # The wire
//
// A connection carries frames: a 4-byte big-endian length, then that many
// bytes (at most Config.MaxFrame). The first frame is the hello, "ftkn"
// then the sender's rank and the group size as uvarints; every later frame
// is the sender's Lamport clock as a uvarint, then the message's canonical
// encoding (core.Message.AppendBinary), read back with Config.Decode. A
// connection whose bytes do not decode (a bad length, a bad hello, a
// message Decode refuses) is closed and reported through Config.Logf; the
// node and its other connections go on. Nothing a peer sends can make the
// node panic.
//
// # The log
//
// Every Step writes one Record: the event, its effects (messages, inputs
// and values as their canonical encodings, with a text for people), a
// per-process sequence number (1, 2, …; the header line is 0) and a
// Lamport clock (a receive takes the maximum of its own clock and the
// sender's, plus one; any other step adds one). Sends and receives on one
// connection pair up in order: the k-th message p receives from q is the
// k-th q logged as sent to p. Together these let a validator merge the logs
// of a group into one causally consistent order and replay it against the
// protocol's model (ftcheck validate).
//
// # Failure detectors
//
// Detector is pluggable. Perfect is the detector a test harness provides:
// the harness kills a process, waits until it is dead, and reports it to
// the survivors with Perfect.Report. A heartbeat detector would implement
// the same interface.
//
// Addresses are loopback only (127.0.0.0/8 or ::1): New refuses any other.
package netnode
