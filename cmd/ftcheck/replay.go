package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/msc"
	"github.com/ftkernel/ftkernel/registry"
)

// replayHelp is the -h command that lists replay's flags.
const replayHelp = "ftcheck replay -h"

// cmdReplay re-executes a saved trace. Exit status 1 when it reproduces a
// violation, 0 when it replays without one (also when the recorded
// violation no longer occurs: the line "the trace no longer violates P"
// says so), 2 on a file that is not a trace of a known model or whose
// steps are not all enabled in that model.
func cmdReplay(args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON summary object")
	html := fs.String("html", "", "write a self-contained HTML message sequence chart of the trace to this file")
	itf := fs.String("itf", "", "write the trace in the Informal Trace Format (ITF, for Apalache's and Quint's tools) to this file: era (--op and), correction, gossipfd (--timing rounds) and replica (--fd perfect) in the variables of their Quint specs (tla/*.qnt), twophase in TwoPhase.tla's, any other model in generic variables (procs, crashed, detected, inFlight, now, action)")
	shrink := fs.Bool("shrink", false, "shrink the trace by delta debugging (keeping its violation) and save it as FILE.shrunk.json")
	// Accept flags before or after the file name.
	var file string
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		file, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args, stdout, "replay", "ftcheck replay TRACE.json [flags]\n"+
		"replay exits 1 when the trace reproduces a violation, 0 when it replays without one\n"+
		"(\"the trace no longer violates P\" when the violation it recorded no longer occurs),\n"+
		"2 on a bad file or a step no longer enabled (\"the trace no longer replays\")"); err != nil {
		return err
	}
	rest := fs.Args()
	if file == "" && len(rest) > 0 {
		file, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		return usageFor(replayHelp, "replay: unexpected argument %q", rest[0])
	}
	if file == "" {
		return usageFor(replayHelp, "replay: name a trace file")
	}
	tr, err := checker.ReadTraceFile(file)
	if err != nil {
		return usageFor(replayHelp, "replay: %s", oneLine(err))
	}
	name := tr.Params[registry.ModelParam]
	p, err := registry.Lookup(name)
	if err != nil {
		return usageFor(replayHelp, "replay %s: the trace names no known model (%v)", file, err)
	}
	r, err := p.BuildParams(tr.Params)
	if err != nil {
		return usageFor(replayHelp, "replay %s: cannot rebuild the model: %v", file, err)
	}
	if *shrink {
		if tr.Violation == nil {
			return usageFor(replayHelp, "replay --shrink: the trace records no violation to keep")
		}
		before := len(tr.Steps)
		if st := r.Shrink(tr); st != nil {
			tr = st
		}
		out := strings.TrimSuffix(file, ".json") + ".shrunk.json"
		if err := tr.WriteFile(out); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "shrunk from %d to %d steps (no single step can be removed); saved to %s\n", before, len(tr.Steps), out)
	}
	if *html != "" {
		ch, ok := registry.ChartOf(r)
		if !ok {
			return usageFor(replayHelp, "replay --html: model %s has no message sequence chart", name)
		}
		c, err := ch.Chart(tr)
		if err != nil {
			return fmt.Errorf("replay --html: %w", err)
		}
		f, err := os.Create(*html)
		if err != nil {
			return err
		}
		if err := msc.WriteHTML(f, c); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		arrows, _ := c.Messages()
		fmt.Fprintf(stdout, "message sequence chart written to %s (%d processes, %d steps, %d message arrows)\n", *html, c.Processes, len(c.Steps), arrows)
	}
	rerr := r.Replay(tr)
	var ve *checker.ViolationError
	var se *checker.StepError
	violated := errors.As(rerr, &ve)
	// gone says why a trace that recorded a violation no longer shows it.
	gone := ""
	switch {
	case violated:
	case rerr == nil && tr.Violation != nil:
		gone = fmt.Sprintf("the trace no longer violates %s: all %d steps replay and it holds along them", tr.Violation.Property, len(tr.Steps))
	case errors.As(rerr, &se) && errors.Is(rerr, checker.ErrNotEnabled):
		return fmt.Errorf("replay %s: the trace no longer replays: step %d (%s) is not enabled in the model as built from its params", file, se.Step, tr.Steps[se.Step-1].Text)
	case rerr != nil:
		return fmt.Errorf("replay %s: %w", file, rerr)
	}
	itfNote := ""
	if *itf != "" {
		doc, states, err := exportITF(r, tr, file)
		if err != nil {
			return usageFor(replayHelp, "replay --itf: %v", err)
		}
		if err := os.WriteFile(*itf, doc, 0o644); err != nil {
			return err
		}
		itfNote = fmt.Sprintf("ITF trace written to %s (%d states)\n", *itf, states)
	}
	if *asJSON {
		out := map[string]any{"model": r.Name(), "mode": "replay", "steps": len(tr.Steps), "seconds": 0.0, "violations": []registry.ViolationRef{},
			"reproduced": violated}
		if violated {
			out["violations"] = []registry.ViolationRef{{Property: ve.Violation.Property, Steps: ve.Violation.Steps, TraceFile: file}}
		}
		if gone != "" {
			out["no_longer_violated"] = gone
		}
		if err := json.NewEncoder(stdout).Encode(out); err != nil {
			return err
		}
	} else {
		header := r.Name()
		if m := tr.Params["mutant"]; m != "" {
			header += " mutant=" + m
		}
		fmt.Fprintf(stdout, "replaying %s on %s\n", file, header)
		shown := *tr
		if !violated {
			// The recorded violation is not printed as if it still held.
			shown.Violation = nil
		}
		if err := shown.Format(stdout); err != nil {
			return err
		}
		switch {
		case violated:
			fmt.Fprintf(stdout, "replay reproduces the violation: %v\n", &ve.Violation)
		case gone != "":
			fmt.Fprintf(stdout, "replay: %s\n", gone)
		default:
			fmt.Fprintf(stdout, "replay: every step enabled, every checked property holds\n")
		}
		fmt.Fprint(stdout, itfNote)
	}
	if violated {
		return errViolation
	}
	return nil
}
