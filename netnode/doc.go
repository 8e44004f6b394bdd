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
// Config.AfterStep, if set, is called on the stepping goroutine after each
// step's effects: the one place where the embedder may read the machine's
// state (a replica's "finished my program", a detector's set of hosts it
// holds failed) without racing with Step.
//
// # Time
//
// Under Run, a timer fires Delay × Config.TimeUnit of real time after it
// was armed. Under RunTicks(ctx, epoch), time is in ticks shared by the
// group, the bounded-delay reading of checker/env: tick k is the real
// interval [epoch + k·TimeUnit, epoch + (k+1)·TimeUnit); a timer armed in
// tick t fires at the start of tick t + max(Delay, 1); a message is
// stepped only in a tick after the one it was sent in (the frame carries
// the sender's tick); every Record carries its tick. A validator can then
// replay the group's logs tick by tick against a bounded-delay model and
// find any message that took more than the model's delay bound, which an
// overloaded machine causes.
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
// then the sender's rank, the group size and its incarnation as uvarints;
// every later frame
// is the sender's Lamport clock and tick (0 under Run) as uvarints, then
// the message's canonical encoding (core.Message.AppendBinary), read back
// with Config.Decode. A
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
// the survivors with Perfect.Report. A heartbeat detector is itself a
// core.Machine (this project's ringfd and gossipfd): run it as a second
// Node of the same process, in ticks, on its own port, and call
// Perfect.Report for each host it holds failed (from its Outputs or its
// AfterStep), as ftcheck run --detector does.
//
// # Crash recovery
//
// A node whose machine is a core.Recoverable may keep stable storage on
// disk (Config.StateDir): after each step it journals the event and
// writes the machine's Recover() state, both fsynced, before the step's
// log line and effects (stable.go says in what order, and why). A killed
// process is restarted by rebuilding its machine with Restore and
// starting a Node with Config.Incarnation above 0: it says its
// incarnation in its hellos, steps core.Restart() first, and its peers,
// told with Node.Rejoin, connect to it and step core.Recovered. A peer
// accepts a later incarnation's connection in place of the dead one's,
// after reading the dead one's to its end (restart.go). Each send's log
// record names the incarnation it went to (EffectRecord.Inc).
//
// Addresses are loopback only (127.0.0.0/8 or ::1): New refuses any other.
package netnode
