// Package gossipfd is the gossip heartbeat failure detector of P2P-MPI
// (Genaud and Rattanapoka, "A Peer-to-Peer Framework for Message Passing
// Parallel Programs", IOS Press 2009, doi:10.3233/978-1-60750-004-9-118,
// §5.1–§5.3), one
// pure core.Machine per host, with its destination functions as
// interchangeable components: Random (§5.1), Round-Robin (Eq. 3), Binary
// Round-Robin (Eq. 4) and Double Binary Round-Robin (Eq. 5).
//
// # The generic module (§5.1, Fig. 11)
//
// Each host s keeps a heartbeat table hb[0…n−1] (a counter per host), and
// lastInc[x], the local round in which hb[x] last increased. Time is counted
// in rounds of T_gossip: one gossip timer (TimerGossip, Delay = TGossip ticks)
// fires per round, and the node's round index g is the number of firings so
// far. The rules, one function each in rules.go:
//
//   - gossipRound: on the gossip timer, g ← g+1; the cleanup check runs; then
//     hb[s] ← g ("its heartbeat incremented") and the whole table goes to the
//     destination of the variant for round g (GOSSIP).
//   - merge: on GOSSIP, every entry is merged "keeping maximum values"; an
//     entry that grows sets lastInc[x] ← g.
//   - cleanupCheck: x is suspected when g − lastInc[x] > T_cleanup (Cleanup,
//     in rounds).
//   - suspect, recvPing, recvPong, pingExpired: the consensus phase of §5.3,
//     "check that a suspected host has really failed through a ping of that
//     host": PING to x, a timer of PingTimeout ticks; a PONG withdraws the
//     suspicion, the timer declares x failed. Only a declaration is an
//     EffSuspect (the notification of the local MPI process, §3.2 step 11);
//     Suspected lists the suspicions still in their ping phase.
//
// # Rounds and the start-up assumption
//
// RR, BRR and DBRR need a common round index r. The paper only says that r
// is "generally implemented as a circular counter" and, in §5.3, that "the
// initial heartbeat adjustment is effective". We state it as an assumption:
// every module is told to Start at the same moment, so round g of every host
// uses r = ((g − 1 + Offset) mod cycle) + 1 with one common Offset (0).
// Config.Offsets gives each host its own offset instead: the out-of-phase
// start, where cycles are not aligned.
//
// # Decisions where the paper is silent (each an option where it matters)
//
//   - BRR's T_cleanup: the chapter gives only DBRR's, 3⌈log2 n⌉ "with the
//     same assumptions as for BRR". Cleanup is a parameter; PaperCleanup
//     gives T_cleanup^min plus one ⌈log2 n⌉ margin (BRR 2⌈log2 n⌉, DBRR
//     3⌈log2 n⌉), and CleanupMinOnly the literal T_cleanup^min.
//   - A successful ping: PongRefresh (default) withdraws the suspicion and
//     restarts x's timeout (lastInc[x] ← g, hb[x] ← max with the heartbeat the
//     PONG carries); PongWithdrawOnly only withdraws it, so x is suspected and
//     pinged again at the next round while its heartbeat does not grow.
//   - A declared host and the routing: RouteFixed (default, literal: Eqs. 3–5
//     always use the initial n, gossip to a dead host is lost) or RouteLive
//     (the equations over the ring of hosts this node has not declared).
//   - Random: one partner per round from an input Plan drawn from a seed
//     outside the machine, never the node itself.
//
// The state has a canonical encoding (AppendBinary), a deep Clone, and
// DecodeNode / DecodeMessage that invert the encodings and reject malformed
// bytes with an error wrapping core.ErrMalformed.
package gossipfd
