// Package paxos is the model of statemachine/paxos (Multi-Paxos as the
// thesis of de Camargo, UFPR 2017, §2.1.2, uses it) in the message-passing
// environment (checker/env), registered as `ftcheck check paxos` and
// `ftcheck simulate paxos`.
//
// Ranks 0 … P−1 are the proposers (p0 the initial coordinator, then the
// order of succession), ranks P … P+A−1 the acceptors; the learners are
// the proposers by default (--learners). I commands c0 … c(I−1) are
// proposed, command k by proposer k mod P, each proposer's in order; p0
// first calls Lead (the pre-executed phase 1 of §2.1.2). The environment
// runs them under bounded delay (every message within Δ ticks, the
// retransmission timer 2Δ+1), with budgets of crashes (--crashes),
// restarts from stable storage (--recoveries), lost messages (--loss) and
// duplicated ones (--dup), and a perfect detector that reports crashes
// and restarts. Properties (props.go): validity, agreement, uniform
// agreement, integrity, in-order decisions and termination; docs/paxos.md
// gives the runs.
package paxos
