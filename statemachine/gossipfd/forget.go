package gossipfd

import (
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

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
	g := n.forgottenRound()
	c := &Node{cfg: n.cfg, self: n.self, started: n.started, g: g,
		hb: make([]uint64, len(n.hb)), lastInc: make([]uint64, len(n.lastInc)),
		suspected: n.suspected.Clone(), declared: n.declared.Clone()}
	c.hb[n.self], c.lastInc[n.self] = g, g
	n.keepHost0(c)
	return c
}

// ForgetMutants are deliberately wrong Forget variants, for the test that
// the forgetting guard's comparison of Eventually verdicts (models/all
// TestForgetEventuallyGuardCatchesWrongForget) catches a Forget that drops
// what a property reads. They are not protocol mutants: without
// forgetting they change nothing, so they are not in Mutants and --mutant
// refuses them (models/gossipfd); a Config may name them (tests only).
var ForgetMutants = []mutant.Name{MutantForgetDropsRound, MutantForgetKeepsHost0}

// MutantForgetDropsRound makes Forget reset the round g (and the host's
// own heartbeat and lastInc entries, which equal g) to 0: completeness and
// completeness-eventually read a crashed host's g, its last round.
const MutantForgetDropsRound = mutant.Name("forget-drops-round")

// MutantForgetKeepsHost0 makes Forget keep host 0's heartbeat and lastInc
// entries as well: a Forget that keeps more than the properties read, so
// it is sound without symmetry, but names a host, so it does not commute
// with the rotation of host ids (models/all
// TestForgetSymmetryGuardCatchesNonCommutingForget).
const MutantForgetKeepsHost0 = mutant.Name("forget-keeps-host0")

// keepHost0 is MutantForgetKeepsHost0's hook in Forget: it copies host 0's
// entries of n into the forgotten node c.
func (n *Node) keepHost0(c *Node) {
	if n.cfg.Mutant == MutantForgetKeepsHost0 {
		c.hb[0], c.lastInc[0] = n.hb[0], n.lastInc[0] // mutant: a host named
	}
}

// forgottenRound is MutantForgetDropsRound's hook in Forget: the round
// kept.
func (n *Node) forgottenRound() uint64 {
	if n.cfg.Mutant == MutantForgetDropsRound {
		return 0 // mutant: the last round forgotten
	}
	return n.g
}
