package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/ftkernel/ftkernel/registry"
)

func cmdSimulate(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("simulate: name a model (see ftcheck list)")
	}
	p, err := registry.Lookup(args[0])
	if err != nil {
		return usagef("simulate: %v", err)
	}
	if p.Simulate == nil {
		return usagef("simulate: model %s has no simulation", p.Name)
	}
	fs := flag.NewFlagSet("simulate "+p.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	run := p.Simulate(fs)
	asJSON := fs.Bool("json", false, "print one JSON summary object")
	outDir := fs.String("out", "out", "directory for counterexample traces")
	if err := fs.Parse(args[1:]); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return usagef("simulate %s: flags listed above", p.Name)
		}
		return usagef("simulate %s: %v", p.Name, err)
	}
	if fs.NArg() > 0 {
		return usagef("simulate %s: unexpected argument %q", p.Name, fs.Arg(0))
	}
	rep, err := run(func(s string) { fmt.Fprintln(stderr, s) })
	if err != nil {
		return usagef("simulate %s: %v", p.Name, err)
	}
	if rep.Trace != nil {
		path, err := saveTrace(*outDir, p.Name, rep.Trace)
		if err != nil {
			return err
		}
		rep.Violations[0].TraceFile = path
		if !*asJSON {
			fmt.Fprintf(stdout, "VIOLATION of %s after %d steps (seed %d):\n", rep.Trace.Violation.Property, len(rep.Trace.Steps), *rep.Trace.Seed)
			if err := rep.Trace.Format(stdout); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "trace saved to %s\n", path)
		}
	}
	if *asJSON {
		out := map[string]any{"model": rep.Model, "mode": rep.Mode, "seed": rep.Seed, "seconds": rep.Seconds, "violations": rep.Violations}
		for k, v := range rep.Figures {
			out[k] = v
		}
		if err := json.NewEncoder(stdout).Encode(out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "seed %d, %.2fs\n%s", rep.Seed, rep.Seconds, rep.Text)
	}
	if len(rep.Violations) > 0 {
		return errViolation
	}
	return nil
}
