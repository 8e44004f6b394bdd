package replica

import "github.com/ftkernel/ftkernel/core"

// Forget is the state the model keeps of a crashed replica (the
// environment's Forgetter, used by checker/env Config.ForgetCrashed): its
// initial state, the replica's identity only (rank, logical process,
// replica index, Config); its program counter, channels, view, backup,
// log, history, queue, outbox and counters are reset. The receiver is
// unchanged.
//
// Why nothing more (models/replica props.go, stack.go): a crashed replica
// never steps again (§4.3: replicas fail by crashing), and the properties
// read of a crashed replica only its outputs and deliveries (the
// environment's histories, kept), its logical process (Logical, a function
// of the rank and the layout), and its DATA count only in runs without
// crashes; validity, agreement, the drained tables and one-master read live
// replicas only.
//
// Forget is a function of the node's identity, idempotent, and DecodeNode
// reads its encoding back (an initial state).
func (n *Node) Forget() core.Machine {
	return &Node{cfg: n.cfg, h: n.h, self: n.self, lp: n.lp, idx: n.idx}
}
