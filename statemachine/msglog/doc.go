// Package msglog is pessimistic sender-based message logging with
// uncoordinated checkpoints, as the thesis of de Camargo (UFPR, 2017)
// gives it in Algorithm 4 (§5.1.2), with the corrections of the English
// specification's §4.6: a core.Machine per MPI process that runs an input
// program (Program: sends, receives by source or ANY_SOURCE, Iprobe
// polling, checkpoints, outputs), keeps a copy of every message it sends
// (keyed by destination and 1-based sequence number), saves the
// determinant {seq, type, source, repetitions} of every non-deterministic
// event through an event logger before the delivery can influence a later
// send, checkpoints to stable storage, garbage-collects the copies its
// peers' checkpoints cover, and, after a crash and restart
// (core.Recoverable), restarts from its own last checkpoint and replays
// its receives from the determinants and the re-sent messages while every
// other process keeps running.
//
// The event logger is used only through its public API (save,
// remove-up-to, retrieve-since) behind the EventLog interface, which the
// embedder provides: this package imports only core and internal/mutant
// (statemachine/deps_test.go), and models/msglog adapts
// statemachine/eventlogger's client node to it.
//
// The thesis's five ambiguities (spec §4.2, A–E) are settled in the rule
// comments (rules.go, recovery.go, checkpoint.go); the literal readings
// that change behaviour are mutants (Mutants).
package msglog
