package correction

import (
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/registry"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// correctionMutants lists the test-only broken variants of --mutant with what each breaks.
func correctionMutants() []registry.MutantInfo {
	docs := map[mutant.Name]string{
		corrsm.MutantCheckedStopEarly:      "checked correction stops a direction at the first message from it, sent-to or not",
		corrsm.MutantKaryHeapOrder:         "k-ary tree in heap order (r·k+1 … r·k+k): a spanning tree, not interleaved",
		corrsm.MutantOpportunisticLeftOnly: "opportunistic correction sends only to the left",
		corrsm.MutantUncoloredCorrects:     "an uncolored process joins correction at the synchronized start",
		corrsm.MutantRelayStaleValue:       "a process relays the value it held before being colored",
		corrsm.MutantRedeliverOnCorrection: "only tree messages are masked: redelivers on correction messages",
		corrsm.MutantOpportunisticWraps:    "opportunistic right-hand distance capped at P, not P−1 (wraps to the neighbour)",
		corrsm.MutantColoredSends:          "a process colored by a correction message sends its tree messages and corrects, as if colored by the tree",
	}
	return registry.MutantInfos(corrsm.Mutants, docs) // not LogPMutants: --mutants runs the exhaustive search
}
