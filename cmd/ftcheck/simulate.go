package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ftkernel/ftkernel/registry"
)

func cmdSimulate(args []string, stdout, stderr io.Writer) error {
	var asJSON bool
	var outDir string
	common := func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print one JSON summary object")
		fs.StringVar(&outDir, "out", "out", "directory for counterexample traces")
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if wantsHelp(args) {
			fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
			common(fs)
			printFlags(fs, stdout, fmt.Sprintf("ftcheck simulate MODEL [model flags] [simulate flags]\nmodels: %s (their flags: ftcheck simulate MODEL -h)", simulatedNames()))
			return errHelp
		}
		return usageFor("ftcheck simulate -h", "simulate: name a model (%s)", simulatedNames())
	}
	p, err := registry.Lookup(args[0])
	if err != nil {
		return usageFor("ftcheck simulate -h", "simulate: %v", err)
	}
	if p.Simulate == nil {
		return usageFor("ftcheck simulate -h", "simulate: model %s has no simulation (models with one: %s)", p.Name, simulatedNames())
	}
	help := "ftcheck simulate " + p.Name + " -h"
	fs := flag.NewFlagSet("simulate "+p.Name, flag.ContinueOnError)
	run := p.Simulate(fs)
	common(fs)
	if err := parseFlags(fs, args[1:], stdout, "simulate "+p.Name, "ftcheck simulate "+p.Name+" [flags]"); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageFor(help, "simulate %s: unexpected argument %q", p.Name, fs.Arg(0))
	}
	rep, err := run(func(s string) { fmt.Fprintln(stderr, s) })
	if err != nil {
		return usageFor(help, "simulate %s: %v", p.Name, err)
	}
	if rep.Trace != nil {
		path, err := saveTrace(outDir, p.Name, rep.Trace)
		if err != nil {
			return err
		}
		rep.Violations[0].TraceFile = path
		if !asJSON {
			fmt.Fprintf(stdout, "VIOLATION of %s after %d steps (seed %d):\n", rep.Trace.Violation.Property, len(rep.Trace.Steps), *rep.Trace.Seed)
			if err := rep.Trace.Format(stdout); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "trace saved to %s\n", path)
		}
	}
	if asJSON {
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

// simulatedNames lists the models that have a simulation, comma-separated.
func simulatedNames() string {
	var names []string
	for _, p := range registry.All() {
		if p.Simulate != nil {
			names = append(names, p.Name)
		}
	}
	return strings.Join(names, ", ")
}
