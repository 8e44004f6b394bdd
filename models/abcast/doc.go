// Package abcast binds statemachine/abcast, atomic broadcast over the stable
// core (de Camargo 2017, Appendix A), to the checker: `ftcheck check
// abcast` explores every interleaving of a small core (validity,
// agreement, integrity and total order), `ftcheck simulate abcast` runs
// the appendix's broadcast round (every stable member broadcasts one
// message) by discrete-event simulation and counts its messages and
// latency. The consensus variant's consensus is statemachine/paxos, used
// through its public API (paxos.go). docs/abcast.md has the results.
package abcast
