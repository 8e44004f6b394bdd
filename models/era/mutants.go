package era

import (
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/registry"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// eraMutants lists the test-only broken variants of --mutant with what each breaks.
func eraMutants() []registry.MutantInfo {
	docs := map[mutant.Name]string{
		erasm.MutantNoGrandchildren:         "omit Part 4's second rule (no RESULTREQUEST to grandchildren)",
		erasm.MutantEarlyRootDecision:       "a root decides before all its children contributed",
		erasm.MutantDownFromAnyone:          "accept DOWN from a process that is not the parent",
		erasm.MutantNoMarkElders:            "skip marking ranks r < q dead on RESULTREQUEST",
		erasm.MutantRecordInsteadOfUp:       "a broadcasting process answers RESULTREQUEST by recording the requester instead of re-sending UP",
		erasm.MutantDecisionIgnoresRequests: "Decision sends DOWN to children only, not to RequestedResult",
		erasm.MutantNoUpToNewParent:         "Part 4: a process whose parent died does not send UP to its new parent",
		erasm.MutantUpNotRemembered:         "Recv(UP) literally as printed: Status tested before Result, non-child UP forgotten",
		erasm.MutantRootIgnoresDown:         "Recv(DOWN) literally as printed: a root ignores its children's DOWN",
		erasm.MutantMarkEldersSilently:      "Recv(RESULTREQUEST) literally as printed: elders marked dead without Part 4",
		erasm.MutantGCDropsResult:           "§3 garbage collection also reclaims Result, which the paper says must be kept",
		erasm.MutantUpOverwrites:            "Recv(UP) assigns Current ← v instead of F(Current, v)",
		erasm.MutantXYRepWrongParent:        "§3 X/Y tree: a node representative takes its parent from the Y rule over global ranks",
		erasm.MutantRebalanceLocalView:      "§3 Tree Rebalancing over the process's own S_p instead of the failures agreed by a-1",
		erasm.MutantULFMUnionAcked:          "MPIX_Comm_agree combine unites the acknowledged failures instead of intersecting them (§1.1)",
		erasm.MutantResendUpFirstOnly:       "Part 4 re-sends UP to the new parent for the first agreement only",
		erasm.MutantRequestEldersOnly:       "Recv(RESULTREQUEST) from q literally as printed: only r < q marked dead, not p's ancestors above q (the orphaned-DOWN finding)",
	}
	return registry.MutantInfos(erasm.Mutants, docs)
}
