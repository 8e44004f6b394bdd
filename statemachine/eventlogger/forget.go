package eventlogger

import "github.com/ftkernel/ftkernel/core"

// Forget is the state the model keeps of a crashed process (the
// environment's Forgetter, used by checker/env Config.ForgetCrashed): the
// node as New builds it, its rank and deployment; every other field (ids,
// calls, the call in progress, the embedded consensus machines, the
// centralized logger's logs, a replica's pending reads) is reset. The
// receiver is unchanged.
//
// Why nothing more: under crash-stop a crashed process never steps again
// (§5.1.1 assumes fail-stop processes; §2.1.2's acceptors "podem falhar"),
// so its state no longer influences any run, and the properties of the
// checked model (models/eventlogger: linearizable, termination, the
// environment's timing and fault-budget rules) read no node: they read
// the environment's records of each process (calls made, returns, the
// crashed set, whether it awaits a return). The environment refuses
// forgetting with crash-recovery, whose restart reads the stable state.
//
// Forget is a function of the node's rank and Config, idempotent, and
// DecodeNode reads its encoding back.
func (n *Node) Forget() core.Machine {
	c, err := New(n.rank, n.cfg)
	if err != nil {
		return nil // n was built by New from the same Config: cannot happen
	}
	return c
}
