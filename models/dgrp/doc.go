// Package dgrp is the model of statemachine/dgrp (the Dynamic Group of
// Recommended Processes, de Camargo 2017 §4.1) in the message-passing
// environment (checker/env), registered as `ftcheck check dgrp` and
// `ftcheck simulate dgrp`.
//
// The check runs N processes in lock-step rounds (every message of a
// round delivered or lost before the next), the test outcomes being the
// environment's choice (at most --slow slow tests, per tester with
// --imperfect, per tested process otherwise), with a loss budget
// (--loss); re-admission runs statemachine/paxos through its public API
// (paxos.go). Properties (props.go): P-DGRP-1 to 3, removal by test,
// leader is the lowest rank, one consensus per request, and barrier
// agreement (not claimed; it fails). The simulation is the §4.3
// campaign over synthetic response times (campaign.go). docs/dgrp.md
// gives the runs.
package dgrp
