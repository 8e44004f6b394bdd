package ringfd

import "github.com/ftkernel/ftkernel/core"

// Forget is the state the model keeps of a crashed daemon (the
// environment's Forgetter, used by checker/env Config.ForgetCrashed): its
// rank, Config and Reported set; its ring pointers, heartbeat numbers,
// freshness index and Started go back to their initial values. The
// receiver is unchanged.
//
// Why Reported only (models/ringfd check.go): a crashed daemon never steps
// again (§4: fail-stop daemons), so its observation state no longer
// influences any run; only the properties read it. Accuracy
// (props.StrongAccuracy) reads every daemon's and process's Reported set,
// crashed ones included; completeness and ring repair read live daemons
// only; forward-at-most-once reads the actor only on a step that sends,
// which a crash step never does. Forget commutes with the ring's
// rotation (the initial pointers of a rank rotate with it).
//
// Forget is a function of the node's state, idempotent, and DecodeNode
// reads its encoding back (the initial daemon with a Reported set).
func (n *Daemon) Forget() core.Machine {
	c := newDaemon(n.d, n.cfg)
	c.reported = n.reported // copied on write: shared, never changed in place
	return c
}

// Forget is a crashed process's state for the environment's Forgetter:
// the process itself (its Reported set, which accuracy reads, is all of
// it).
func (n *Process) Forget() core.Machine {
	c := *n
	return &c
}
