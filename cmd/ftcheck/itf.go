package main

import (
	"fmt"
	"strconv"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/registry"
	"github.com/ftkernel/ftkernel/tla/conformance"
)

// exportITF writes tr, a trace of the model r rebuilt from its Params, in
// the Informal Trace Format (ITF, Apalache's and Quint's trace format). It
// returns the document and its number of states (steps + 1). source names
// the trace file in the ITF metadata. The variables are those of the
// model's specification where the Go states have an abstraction to it:
//
//   - era (--op and): tla/era_go.qnt's, as the conformance tests compare
//     them (tla/conformance);
//   - correction: tla/correction.qnt's;
//   - gossipfd (--timing rounds): tla/gossipfd.qnt's (round, crashed, hb,
//     lastInc, suspected, declared, falseSusp, mbt::actionTaken);
//   - replica (--fd perfect): tla/replica.qnt's (node, crashed, msgs,
//     mbt::actionTaken);
//   - twophase: TwoPhase.tla's (rmState, tmState, tmPrepared, msgs,
//     mbt::actionTaken);
//
// and otherwise (ringfd, gossipfd --timing bounded, replica --fd brr|dbrr,
// any message-passing model) the generic variables of the checker's
// message-passing worlds (itf_generic.go: procs, crashed, detected,
// inFlight, now, action, mbt::actionTaken), or, for a model of another
// kind, its states as text (state, action, mbt::actionTaken). Errors: a
// trace that does not replay, or an era or correction trace outside what
// its spec models.
func exportITF(r registry.Runner, tr *checker.Trace, source string) (doc []byte, states int, err error) {
	m, isEnv := registry.EnvModel(r)
	model := tr.Params[registry.ModelParam]
	// The conformance abstractions assume the values of their specs and
	// panic on others; a trace file is user input, so turn any such panic
	// into an error.
	defer func() {
		if p := recover(); p != nil {
			doc, states, err = nil, 0, fmt.Errorf("%s trace outside what the spec models: %v", model, p)
		}
	}()
	switch {
	case model == "era" && isEnv:
		if op, ok := tr.Params["op"]; ok && op != "and" {
			return nil, 0, fmt.Errorf("era --op %s: the spec (tla/era_go.qnt) models op and only", op)
		}
		nags, err := strconv.Atoi(tr.Params["agreements"])
		if err != nil || nags < 1 {
			return nil, 0, fmt.Errorf("era trace: agreements %q is not a positive number", tr.Params["agreements"])
		}
		g, err := conformance.FromChecker(m, tr, nags)
		if err != nil {
			return nil, 0, err
		}
		doc, err = g.ITF(source)
		return doc, len(g.Steps) + 1, err
	case model == "correction" && isEnv:
		in := conformance.CorrInstance{Module: "correction", P: m.N(), F: m.Config().Crashes}
		g, err := conformance.FromCorrectionChecker(in, m, tr)
		if err != nil {
			return nil, 0, err
		}
		doc, err = g.ITF(source)
		return doc, len(g.Steps) + 1, err
	}
	ss, err := registry.ReplayStates(r, tr)
	if len(ss) != len(tr.Steps)+1 {
		if err == nil {
			err = fmt.Errorf("%d states for %d steps", len(ss), len(tr.Steps))
		}
		return nil, 0, fmt.Errorf("replay: %w", err)
	}
	return exportStates(r, tr, ss, source)
}
