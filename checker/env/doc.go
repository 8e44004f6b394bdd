// Package env is the asynchronous message-passing environment that turns N
// core.Machine nodes into a checker.Model[*World]. It knows no protocol: a
// protocol plugs in through a Config (its node constructor, call schedules
// and properties).
//
// # Semantics
//
// Network: reliable and asynchronous; Unordered (a multiset, the default) or
// FIFO per (sender, receiver) pair. Sends to self are allowed and delivered
// like any other message. Messages to a crashed process are dropped: those in
// flight when it crashes at the crash, later ones at send time. Messages sent
// by a process that later crashes are still delivered; with LossOnCrash each
// of them may also be lost (a Lose action).
//
// Faults: crash-stop, at any step, at most Config.Crashes of them. A crashed
// node's last state is kept (properties look at it) but it never steps again.
// Config.Fail ranks must crash, outside that budget: in exhaustive search
// each may crash at any step, and a state where one is still alive is not
// quiescent; random walks (Sample) crash each of them at a random point, at
// the latest when nothing else is enabled.
//
// Crash-recovery, budgeted loss and duplication (Faults CrashRecovery with
// Config.Recoveries, Loss LossAny with Config.Losses, Config.Duplicates):
// a crashed process restarts as its core.Recoverable's Recover(), stepped
// with core.Restart(), reported to the processes told of its crash with
// core.Recovered (a DetectRecover action); any message may be lost, or
// duplicated next to itself, within the budgets (recovery.go, lossdup.go,
// faults.go; FaultProperties checks them on every step).
//
// Failure detector (perfect, as in ERA's Lemma 1): only crashed processes are
// suspected, and every crash is reported to every live process, each report
// "q is dead" to p being its own action Detect(p, q), which steps p with
// core.Suspect(q).
//
// Placement and local detection (Config.Hosts, DetectorLocal; hosts.go):
// with Hosts, a host's crash crashes every live rank it hosts in the same
// step (a node failure kills its processes); a hosted rank may also crash
// alone. Either is one crash of the budget, which the world then encodes.
// DetectorLocal reports a hosted rank's crash to its host only (a runtime
// daemon seeing its own process exit) and no other crash to anyone.
//
// Inputs: process p makes the calls of its schedule in order, each as its own
// action Call(p), as long as it is alive; with Blocking, only after its
// previous call has returned (an EffReturn effect of any later step of p).
//
// Timers: time is abstract. EffSetTimer(id, delay) arms timer id of the
// process (re-arming an armed id changes nothing: the delay orders
// nothing); an armed timer is a pending action Fire(p, id) that may happen
// at any later point and steps p with core.Timer(id). Armed timers are part
// of the state, make it non-quiescent (a timer must eventually fire:
// fairness) and are discarded when the process crashes. Config.Wakeups
// model a synchronized clock: once nothing else is enabled, a Clock action
// arms the next wakeup timer at every live process; Config.CrashBeforeWakeup
// confines budget crashes to before the first Clock. Config.Survivors never
// crash.
//
// Timing: the timers above are Asynchronous (the default); LockStepRounds
// and BoundedDelay (Config.Timing) give time a structure.
//
// # Bounded delay
//
// Under Timing BoundedDelay with Config.Delta = Δ ≥ 1 (Δ in ticks), a
// global clock counts integer ticks, starting at 0:
//
//   - A message sent at tick t is delivered at a nondeterministic tick in
//     [t+1, t+Δ]: its Deliver is not enabled at t, is enabled (but not
//     forced) from t+1 on, and is due at t+Δ, its deadline.
//   - A timer armed at tick t with EffSetTimer Delay d (ticks) fires
//     exactly at tick t+d: its Fire is enabled, and due, at that tick only.
//     Delay 0 is read as 1 (a timer never fires in the tick that armed it;
//     delay.go says why). Re-arming an armed timer replaces its deadline
//     (unlike Asynchronous, where it changes nothing): the timer-reset
//     reading of heartbeat detectors.
//   - Calls and detector notifications are due at once: a call is made, and
//     each Detect(p, q) taken, at the tick the call became possible or q
//     crashed (the perfect detector's latency is zero ticks; a Detect is
//     just another step of that tick, in any order with the others).
//   - Crashes happen at any step within the budget, as above, and are never
//     due: time may pass without one. A crash takes no time.
//   - Within a tick every order of the enabled steps (open deliveries, due
//     timers, calls, detections, crashes, losses) is explored. A Tick
//     action advances the clock by one; it is enabled exactly when nothing
//     is due at the current tick (no message at its deadline, no due timer,
//     no call to make, no pending Detect) and a message is in flight or a
//     timer armed. A message whose window is open but not closing may thus
//     be delivered now or at a later tick: both are explored.
//   - Under FIFO only a queue's head may be delivered, once its window is
//     open; deadlines never decrease along a queue. With LossOnCrash, an
//     open message from a crashed sender may be lost instead (Lose).
//   - Quiescent: nothing in flight, no timer armed, no call or detection
//     left (and every Fail rank crashed); then no Tick is enabled either.
//   - Config.Wakeups (a clock in abstract time) is refused with it.
//
// The state is kept relative to the current tick, so that a system that
// only exchanges heartbeats reaches a cycle instead of an unbounded run:
// each distinct message in flight carries its deadline minus now (0 … Δ;
// copies with equal sender and bytes but different deadlines are distinct
// entries, and the index I of a Deliver counts every entry from the sender,
// open or not), each armed timer its deadline minus now (0 … its delay). A
// world's encoding is that of the other timings plus those offsets: each
// inbox entry's after its bytes, each armed timer's after its id. The
// clock itself is not encoded: World.Now gives it, like
// Depth a property of the path, not of the world, and properties must not
// read it.
//
// Every cycle of the state graph contains a Tick (messages take a tick at
// least, timers too), and a Tick is enabled only when nothing is due, so
// no cycle postpones a delivery, a timer or a detector notification
// forever: liveness over lassos (checker.Eventually) needs no fairness
// assumption here, except that Fail ranks may stay alive on a cycle (use
// the crash budget for liveness). A Tick changes every process with
// something pending, so partial-order reduction treats it as dependent
// with every action; random walks (Sample) pick it uniformly among the
// enabled non-crash actions.
//
// History: the EffDecide, EffReturn and EffDeliver effects of each process,
// in order, are kept in the World and encoded. EffSuspect is only observed
// (LastEffects).
//
// # Cost
//
// A World is immutable and persistent: per-process records live in a 32-ary
// tree with copy-on-write paths, so Apply clones only the stepping node and
// copies O(log N) tree nodes per process touched (plus that process's inbox
// and history). The tree also sums, per subtree, the enabled actions, so
// Sample picks an action in O(log N) without listing them.
package env
