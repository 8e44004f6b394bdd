package paxos

import (
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/registry"
	px "github.com/ftkernel/ftkernel/statemachine/paxos"
)

// mutantInfos lists the statemachine's broken variants for --mutant and
// --mutants, with what each breaks.
func mutantInfos() []registry.MutantInfo {
	docs := map[mutant.Name]string{
		px.MutantAcceptLowerBallot:      "an acceptor accepts an ACCEPT below its promise (phase 1's promise broken)",
		px.MutantIgnorePromisedValue:    "a new coordinator ignores the votes phase 1 reported and places its own commands",
		px.MutantForgetPromiseOnRestart: "the promised ballot is not on stable storage: a restarted acceptor promises nothing",
		px.MutantLearnOnMinority:        "a learner decides on f votes of 2f+1 (at least one), not a quorum",
		px.MutantRelabelRequest:         "the coordinator places a command it received in a REQUEST under its own rank (a value no one proposed)",
		px.MutantDecideBeforeChosen:     "a coordinator that learns delivers a command as it places it, before a quorum accepted it",
		px.MutantForgetLogOnRestart:     "the learner's log is not on stable storage: a restarted learner delivers instances again",
		px.MutantDeliverOutOfOrder:      "a learner delivers the lowest instance it has a chosen value for without waiting for the ones below",
	}
	out := make([]registry.MutantInfo, 0, len(px.Mutants))
	for _, m := range px.Mutants {
		out = append(out, registry.MutantInfo{Name: string(m), Doc: docs[m]})
	}
	return out
}
