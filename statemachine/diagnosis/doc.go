// Package diagnosis is system-level diagnosis as de Camargo's thesis (UFPR 2017, chapter 3)
// presents it: the PMC and BGM syndrome models (§3.1, §3.2), Adaptive-DSD (§3.3, Bianchini and
// Buskens), Hi-ADSD (§3.4, Duarte and Nanya) and VCube (§3.4, Duarte, Bona and Ruoso).
//
// The distributed algorithms run in synchronous test rounds. A System holds every node's
// diagnostic state and the real fault set; Round applies one test round to all fault-free nodes at
// once, each reading the tested node's state as it was at the start of the round (lock-step
// rounds: a test's reply carries the tested node's state of the previous round). Tests are accurate
// (PMC): a fault-free tester learns the tested node's real state. Faulty nodes are crashed: they
// neither test nor answer, and their state is frozen until they recover. Event changes a node's
// state; a recovering node restarts from the initial state (every node believed fault-free).
//
// VCubeNode is VCube as one core.Machine per node over a network, the machine that ftcheck run
// vcube runs over TCP: a test is a TEST message and its REPLY, rounds are timed (2Δ + 1 ticks),
// and a tested node that has not answered by the round's deadline is tested faulty.
//
// Everything here is deterministic and imports only core: the checker (models/diagnosis) chooses
// fault sets and event placements, and observes each round's tests through Round's result.
package diagnosis
