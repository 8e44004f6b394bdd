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
// Failure detector (perfect, as in ERA's Lemma 1): only crashed processes are
// suspected, and every crash is reported to every live process, each report
// "q is dead" to p being its own action Detect(p, q), which steps p with
// core.Suspect(q).
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
