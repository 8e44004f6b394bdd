// Package eventlogger is the event logger of pessimistic message logging
// as the thesis of de Camargo (UFPR, 2017) builds it, §5.1.3: a service
// that saves the determinants of the application processes (save(det) →
// id), removes them up to an id after a checkpoint (remove-up-to, Algorithm
// 4 line 18) and returns them to a recovering process (retrieve-since,
// Algorithm 4 line 61), written as core.Machines in three implementations
// (Config.Kind): a centralized logger, Classic Paxos (one instance
// sequence shared by every process, replicas that are acceptors and
// learners) and Parallel Paxos (one sequence and one set of acceptors per
// process, its coordinator-acceptor co-located with it).
//
// The Paxos loggers embed consensus machines through the Consensus
// interface, which the embedder provides: this package imports only core
// (statemachine/deps_test.go), and models/eventlogger adapts
// statemachine/paxos to it through that package's public API.
//
// A read during recovery goes through a quorum: retrieve-since puts a read
// barrier through the sequence and returns the log of the instances before
// it, so a concurrent save is seen iff it was chosen before the barrier.
// Commands carry the proposer's incarnation, and a crashed incarnation's
// command chosen after its successor's is ignored. docs/eventlogger.md has
// the decisions, Table 5.1 from runs, the throughput simulation and the
// checks.
package eventlogger
