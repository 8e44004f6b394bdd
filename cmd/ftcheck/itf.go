package main

import (
	"fmt"
	"strconv"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/registry"
	"github.com/ftkernel/ftkernel/tla/conformance"
)

// exportITF writes tr, a trace of the model r rebuilt from its Params, in
// the Informal Trace Format with the variable names of the Quint spec the
// conformance tests compare the Go machines with (tla/conformance): ERA
// (op and) as tla/era_go.qnt, Corrected Trees as tla/correction.qnt. It
// returns the document and its number of states (steps + 1). source names
// the trace file in the ITF metadata. Any other model, or a trace with a
// step the spec has no counterpart for, is an error.
func exportITF(r registry.Runner, tr *checker.Trace, source string) (doc []byte, states int, err error) {
	m, ok := registry.EnvModel(r)
	model := tr.Params[registry.ModelParam]
	if !ok {
		return nil, 0, fmt.Errorf("model %s is not a message-passing model; ITF export exists for era and correction", model)
	}
	// The conformance abstractions assume the values of their specs and
	// panic on others; a trace file is user input, so turn any such panic
	// into an error.
	defer func() {
		if p := recover(); p != nil {
			doc, states, err = nil, 0, fmt.Errorf("%s trace outside what the spec models: %v", model, p)
		}
	}()
	switch model {
	case "era":
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
	case "correction":
		in := conformance.CorrInstance{Module: "correction", P: m.N(), F: m.Config().Crashes}
		g, err := conformance.FromCorrectionChecker(in, m, tr)
		if err != nil {
			return nil, 0, err
		}
		doc, err = g.ITF(source)
		return doc, len(g.Steps) + 1, err
	}
	return nil, 0, fmt.Errorf("model %s has no Quint spec to export to; ITF export exists for era and correction", model)
}
