// Package gossipfd is the model of the gossip failure detectors of P2P-MPI
// (Genaud and Rattanapoka, 2009, §5): a deterministic discrete-event driver
// of the statemachine/gossipfd machines (Sim; with message delays below
// T_gossip it is the synchronous round model of §5.1), and the analyses of
// the detectors, each a Go function behind an `ftcheck simulate gossipfd` flag:
//
//   - CleanupMin: rounds for a heartbeat to reach every host, best and worst
//     over the starting phase of the cycle, beside the paper's T_cleanup^min.
//   - FDFailure: the probability that the detector fails (§5.2, Fig. 12),
//     reading A (a live host has all its gossip sources failed) and reading B
//     (the gossip graph on live hosts is not strongly connected), exactly by
//     enumeration or by seeded Monte Carlo with 95 % Wilson intervals.
//   - Detection: the Fig. 13 detection time, simulated, beside T_cleanup.
//   - Load: gossip messages and bytes per round.
//   - MinCleanup: the smallest T_cleanup without a false suspicion, over all
//     crash sets and crash rounds.
//   - Canonical: the rotation symmetry's canonical representative.
//
// CheckModel is the round model as a checker.Model (every crash choice
// within a budget), registered as `ftcheck check gossipfd` with its
// properties accuracy, no-false-suspicion and completeness, its mutants,
// and rotation symmetry; CheckedMinCleanup asks it for the smallest safe
// T_cleanup. NewEnvModel is the same detector in checker/env's
// bounded-delay environment (`--timing bounded`), with the same three
// properties (completeness as a bounded response read from the hosts'
// round counters, EnvCompleteness; optionally over lassos,
// EnvEventualCompleteness) and rotation symmetry (SymmetricEnv). See
// docs/gossipfd.md.
package gossipfd
