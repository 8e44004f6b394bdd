// Package replica is P2P-MPI's replica coordination protocol (Genaud and
// Rattanapoka, "A Peer-to-Peer Framework for Message Passing Parallel
// Programs", 2009, §4): every logical process P_i of an MPI program runs as
// r replicas P_i^0 … P_i^{r-1} that execute the same deterministic program;
// one replica per logical process, the master, sends for the group
// (sending agreement), receivers discard duplicates by message identifier
// (reception agreement), and a new master re-sends its backup after the
// old one fails (recovery).
//
// # Ranks
//
// Every replica is one core.Machine with its own environment rank. Ranks
// are assigned logical process by logical process, replica index by
// replica index (Layout):
//
//	logical P_0: ranks 0 … d_0-1        (P_0^0 … P_0^{d_0-1})
//	logical P_1: ranks d_0 … d_0+d_1-1  (P_1^0 …)
//	…
//
// where d_i is the number of replicas of P_i: the replication degree r, or
// 1 for P_0 when it is not replicated (the paper's default, §4: "the
// process running on the submitter host, numbered 0 by convention, … is
// not replicated"). Layout.Rank and Layout.Of convert both ways.
//
// # Driving a replica
//
// A replica starts running its program on the call Start (core.EvCall). It
// then runs on its own: it executes local instructions and sends, and
// stops only at a Recv with no deliverable message ("Execution stops only
// in a waiting state on a receive instruction", §4.2) or at the end of the
// program. Every network message it emits goes out one per step, through
// an outbox pumped by a timer (PumpTimer, core.EvTimer), so that a crash
// can fall between any two of the messages of one send, as §4.3 requires
// ("If the sender crashes between any send to the destination
// processes"). Failures arrive as core.EvSuspect from a perfect failure
// detector.
//
// # Outputs
//
// Each delivery of a message to the program is an EffDeliver effect whose
// Instance counts the replica's deliveries (0, 1, …) and whose Value is a
// Delivery (the MID and the payload). Each Output(value) instruction of the
// program is an EffDecide effect whose Instance counts the replica's
// outputs and whose Value is an Output. EffDecide rather than EffReturn:
// an output is the program's result, not the answer to a call.
package replica
