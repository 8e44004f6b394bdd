package hyperquicksort

import "github.com/ftkernel/ftkernel/internal/mutant"

// The mutants: deliberately broken variants, each a minimal change to one
// rule, for testing that a checker catches them. Set Config.Mutant.
const (
	// MutantPartnerXor makes a recommended process send its own half to
	// i ⊕ 2^(s−1) (Algorithm 1 line 14) even when that process is
	// non-recommended, instead of to the partner of Algorithm 2: the list
	// reaches a process that takes no part in the round, and the
	// substitute playing i ⊕ 2^(s−1) waits for it for ever (the sort
	// terminates).
	MutantPartnerXor = mutant.Name("partner-xor")
	// MutantSkipStore makes a substitute skip the shared store: it plays a
	// non-recommended rank with the copy of its list it last held itself
	// (none if it never played it) and does not save it at the round's end
	// (permutation).
	MutantSkipStore = mutant.Name("skip-store")
	// MutantLocalPivot makes every virtual rank split its list by its own
	// median instead of the pivot its cluster root broadcast (sorted).
	MutantLocalPivot = mutant.Name("local-pivot")
)

// Mutants lists every mutant.
var Mutants = []mutant.Name{MutantPartnerXor, MutantSkipStore, MutantLocalPivot}
