// Package msglog is the model of statemachine/msglog (pessimistic
// sender-based message logging, de Camargo 2017, Algorithm 4, §5.1–5.2)
// in the message-passing environment (checker/env), registered as
// `ftcheck check msglog` and `ftcheck simulate msglog`.
//
// Ranks 0 … procs−1 are the application processes, each running its part
// of a shipped program (--program: fig51, masterworker, ring, probe,
// gather); the event logger's nodes follow (statemachine/eventlogger,
// --logger centralized|classic|parallel, composed in logger.go through its
// public API). Channels are reliable and FIFO (§5.1.1), the failure
// detector perfect, the fault model crash-recovery: --crashes application
// processes crash, --recoveries restarts (the logger's own failures are
// models/eventlogger's). Properties (props.go): recovery-faithful,
// no-orphan, no-duplicate-delivery, gc-safe, pessimism,
// determinants-kept, termination and only-failed-rolls-back (rollback.go,
// with the model-level mutant survivor-rollback). simulate runs one
// scenario with --crash RANK@K and, with --walks, random campaigns
// (campaign.go); --measure cost|recovery|domino measures the cost of
// logging (cost.go), of recovery (recoverycost.go) and the domino effect
// without logging (domino.go) instead; docs/msglog.md gives the runs.
package msglog
