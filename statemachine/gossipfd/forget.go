package gossipfd

import "github.com/ftkernel/ftkernel/core"

// Forget is the state the model keeps of a crashed host (the
// environment's Forgetter, used by checker/env Config.ForgetCrashed): the
// host, its Config, Started, its round g (its own heartbeat and lastInc
// entries, which equal g), and its suspected and declared sets; the
// heartbeat table and the lastInc rounds of the other hosts are reset to 0.
// The receiver is unchanged.
//
// Why these (models/gossipfd envmodel.go): a crashed host never steps again
// (P2P-MPI §5: hosts fail by crashing), so its tables no longer influence
// any run; only the properties read it. Accuracy and no-false-suspicion
// (props.StrongAccuracy) read every host's declared and suspected sets,
// crashed hosts' included; completeness reads a crashed host's round g
// (its last round), completeness-eventually too. Forget commutes with the
// rotation of host ids (SymmetricEnv): it keeps sets and g and zeroes the
// tables, whatever the names.
//
// Forget is a function of the node's state (its encoding, host and Config),
// idempotent, and DecodeNode reads its encoding back (it is consistent: a
// host's own entries equal g, no lastInc exceeds g).
func (n *Node) Forget() core.Machine {
	c := &Node{cfg: n.cfg, self: n.self, started: n.started, g: n.g,
		hb: make([]uint64, len(n.hb)), lastInc: make([]uint64, len(n.lastInc)),
		suspected: n.suspected.Clone(), declared: n.declared.Clone()}
	c.hb[n.self], c.lastInc[n.self] = n.g, n.g
	return c
}
