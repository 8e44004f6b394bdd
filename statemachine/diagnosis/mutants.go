package diagnosis

import "github.com/ftkernel/ftkernel/internal/mutant"

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
)

// Mutants lists every broken variant of the package.
var Mutants = []mutant.Name{MutantClusterNoXOR, MutantTesterOwnCluster, MutantCopyFromFaulty, MutantDiagnoseSkip, MutantTimestampGE}
