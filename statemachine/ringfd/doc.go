// Package ringfd is the runtime-level failure detector of Zhong, Bouteiller,
// Luo and Bosilca, "Runtime Level Failure Detection and Propagation in HPC
// Systems" (EuroMPI 2019), the detector the paper calls RDAEMON#: daemons
// observe their hosted application processes directly (§4.4), observe one
// another along a ring with heartbeats and mend the ring around dead daemons
// (§4.5, Fig. 3), and broadcast every failure over a binomial graph (BMG)
// between daemons plus a star from each daemon to its hosted processes
// (§4.6, Algorithm 1).
//
// # Machines and ranks
//
// Daemons and application processes are both core.Machines. With N daemons
// and P processes per daemon (Config.N, Config.Procs), ranks are laid out as
//
//	daemon d         rank d,             0 ≤ d < N
//	process j of d   rank N + d·P + j,   0 ≤ j < P
//
// so a rank is also the tagged identifier the paper's Reported_i mixes
// ("Set of failed daemon and processes identifiers", Table 1): a rank below
// N names a daemon, any other a process. Config.Host, Config.ProcRank and
// Config.Hosted convert between the two. Hosted{d} is static and known to
// every daemon (the paper reads it from the PMIx key-value store, §4.7.2).
//
// # Events a runtime delivers
//
//   - core.Call(Start{}) once to every daemon at time 0: it arms the
//     heartbeat timer (period δ) and the observation timer.
//   - core.Timer(TimerHeartbeat) and core.Timer(TimerObserve) when they fall
//     due. Timers are relative (EffSetTimer.Delay in ticks); re-arming an
//     armed timer id replaces its deadline (a timer reset), which is what the
//     timer-reset trust rule needs.
//   - core.Suspect(p) to daemon d for a hosted process p that died: the
//     SIGCHLD path of §4.4, a perfect local detector. Any other Suspect is an
//     error: daemons detect each other only by heartbeats.
//   - core.Receive of HB, HBRequest and Fault between daemons, and of Fault
//     from a daemon to its hosted processes.
//
// A daemon reports each suspicion it raises itself (a heartbeat timeout or a
// local process exit) as an EffSuspect effect; Reported, Pred and Obs let a
// runtime or a checker read the rest of its state.
package ringfd
