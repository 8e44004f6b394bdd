package diagnosis

import (
	"slices"

	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Broken variants, one per property of models/diagnosis; reachable only from tests and
// ftcheck --mutant.
const (
	// MutantClusterNoXOR computes c(i, s) with + instead of ⊕: (i + 2^(s−1) + k) mod n.
	MutantClusterNoXOR = mutant.Name("cluster-no-xor")
	// MutantTesterOwnCluster makes VCube's tester rule read c(i, s) instead of c(j, s).
	MutantTesterOwnCluster = mutant.Name("tester-own-cluster")
	// MutantCopyFromFaulty makes Adaptive-DSD copy TESTED_UP from the first node it tests, even
	// one it tested faulty.
	MutantCopyFromFaulty = mutant.Name("copy-from-faulty")
	// MutantDiagnoseSkip makes Diagnose skip the first pointer of the chain.
	MutantDiagnoseSkip = mutant.Name("diagnose-skip")
	// MutantTimestampGE makes VCube's merge accept an entry whose timestamp is ≥ the local one
	// instead of >.
	MutantTimestampGE = mutant.Name("timestamp-ge")
	// MutantRoundTwoDelta makes a round of VCubeNode last 2Δ ticks instead of 2Δ + 1: its
	// deadline falls in the tick in which the last replies may still arrive.
	MutantRoundTwoDelta = mutant.Name("round-2delta")
	// MutantSilenceFaultFree makes VCubeNode leave a tested node that did not answer as it was
	// believed, instead of testing it faulty.
	MutantSilenceFaultFree = mutant.Name("silence-fault-free")
)

// Mutants lists every broken variant of the package.
var Mutants = []mutant.Name{MutantClusterNoXOR, MutantTesterOwnCluster, MutantCopyFromFaulty, MutantDiagnoseSkip, MutantTimestampGE}

// NodeMutants lists the broken variants of VCubeNode: those of VCube's rules, and those of its
// messages and deadline.
var NodeMutants = []mutant.Name{MutantClusterNoXOR, MutantTesterOwnCluster, MutantTimestampGE, MutantRoundTwoDelta, MutantSilenceFaultFree}

func isNodeMutant(m mutant.Name) bool { return slices.Contains(NodeMutants, m) }
