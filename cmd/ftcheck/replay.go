package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/registry"
)

func cmdReplay(args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print one JSON summary object")
	// Accept flags before or after the file name.
	var file string
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		file, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return usagef("replay: %v", err)
	}
	if file == "" && fs.NArg() > 0 {
		file = fs.Arg(0)
	}
	if file == "" {
		return usagef("replay: name a trace file")
	}
	tr, err := checker.ReadTraceFile(file)
	if err != nil {
		return usagef("replay: %v", err)
	}
	name := tr.Params[registry.ModelParam]
	p, err := registry.Lookup(name)
	if err != nil {
		return usagef("replay %s: the trace names no known model (%v)", file, err)
	}
	r, err := p.BuildParams(tr.Params)
	if err != nil {
		return usagef("replay %s: cannot rebuild the model: %v", file, err)
	}
	rerr := r.Replay(tr)
	var ve *checker.ViolationError
	violated := errors.As(rerr, &ve)
	if rerr != nil && !violated {
		return fmt.Errorf("replay %s: %w", file, rerr)
	}
	if *asJSON {
		out := map[string]any{"model": r.Name(), "mode": "replay", "steps": len(tr.Steps), "seconds": 0.0, "violations": []registry.ViolationRef{}}
		if violated {
			out["violations"] = []registry.ViolationRef{{Property: ve.Violation.Property, Steps: ve.Violation.Steps, TraceFile: file}}
		}
		if err := json.NewEncoder(stdout).Encode(out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "replaying %s on %s\n", file, r.Name())
		if err := tr.Format(stdout); err != nil {
			return err
		}
		if violated {
			fmt.Fprintf(stdout, "replay reproduces the violation: %v\n", ve.Violation)
		} else {
			fmt.Fprintf(stdout, "replay: every step enabled, every checked property holds\n")
		}
	}
	if violated {
		return errViolation
	}
	return nil
}
