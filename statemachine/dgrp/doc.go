// Package dgrp is the Dynamic Group of Recommended Processes of de
// Camargo's thesis (UFPR, 2017, §4.1) as a core.Machine: processes test
// each other with imperfect tests; a process any member tests
// non-recommended leaves the group; it is re-admitted after ζ consecutive
// recommended tests observed by a member and a consensus run by the
// lowest-ranked member; computation rounds end at a barrier, where the
// group is read.
//
// # Using it
//
// Build every node with New from one Config (the Consensus, such as
// statemachine/paxos adapted by models/dgrp, is the embedder's). Step each
// node as any core.Machine:
//
//	core.Call(Start{Slow})        start: the tests this tester finds slow
//	core.Timer(TimerTick)         the test interval: close the round, pass the barrier
//	core.Timer(TimerConsensus)    the embedded consensus machine's timer
//	core.Receive(q, m)            EVENTS, ACK, READMIT_REQ, the consensus's messages (Wrap)
//
//	core.EffSend, core.EffSetTimer  carry them out (channels may lose messages with Config.Lossy)
//
// A node's view of the group is View (the ranks whose event counter is
// even); the view read at each barrier is ViewAt.
//
// rules.go holds the rules, each citing the thesis, with the six
// ambiguities of the specification (§3.7) decided as "Ambiguity:";
// threshold.go the recommendation threshold (Jacobson/Karels × F);
// mutants.go the broken variants for checkers.
package dgrp
