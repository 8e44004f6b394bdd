package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/ftkernel/ftkernel/registry"
)

func cmdSimulate(args []string, stdout, stderr io.Writer) error {
	var asJSON, quiet bool
	var out string
	common := func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print one JSON summary object (keys of every model: model, mode, seed, complete, violations, seconds)")
		fs.BoolVar(&quiet, "quiet", false, "no progress lines")
		fs.StringVar(&out, "out", "out", "directory for counterexample traces (created if missing; checked before the runs)")
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if wantsHelp(args) {
			fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
			common(fs)
			printFlags(fs, stdout, fmt.Sprintf("ftcheck simulate MODEL [model flags] [simulate flags]\nmodels: %s (their flags: ftcheck simulate MODEL -h)\nCtrl-C or SIGTERM stops the runs and reports those done (exit 3)", simulatedNames()))
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
	o, err := prepareOut(out)
	if err != nil {
		return usageFor(help, "simulate %s: %v", p.Name, err)
	}
	defer o.done()
	// Ctrl-C or SIGTERM stops the runs; the report covers those done. A
	// second one kills the process (a simulation that cannot stop early
	// runs to its end otherwise).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	progress := func(s string) { fmt.Fprintln(stderr, s) }
	if quiet {
		progress = func(string) {}
	}
	rep, err := run(ctx, progress)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "ftcheck: interrupted; reporting the runs done")
	}
	if err != nil {
		return usageFor(help, "simulate %s: %v", p.Name, err)
	}
	if rep.Trace != nil {
		tr := rep.Trace
		header := fmt.Sprintf("VIOLATION of %s after %d steps", tr.Violation.Property, len(tr.Steps))
		if tr.Seed != nil {
			header += fmt.Sprintf(" (seed %d)", *tr.Seed)
		}
		ref, err := reportViolation(o, p.Name, tr, header+":\n", asJSON, stdout, stderr)
		if err != nil {
			return err
		}
		ref.Property, ref.Steps = rep.Violations[0].Property, rep.Violations[0].Steps
		rep.Violations[0] = ref
	}
	if asJSON {
		doc := map[string]any{}
		for k, v := range rep.Figures {
			doc[k] = v
		}
		for k, v := range map[string]any{"model": rep.Model, "mode": rep.Mode, "seed": rep.Seed, "complete": !rep.Interrupted,
			"seconds": rep.Seconds, "violations": rep.Violations} {
			doc[k] = v
		}
		if err := json.NewEncoder(stdout).Encode(doc); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "seed %d, %.2fs\n%s", rep.Seed, rep.Seconds, rep.Text)
		if !strings.HasSuffix(rep.Text, "\n") {
			fmt.Fprintln(stdout)
		}
		if rep.Interrupted {
			fmt.Fprintln(stdout, "interrupted: the figures above cover the runs done (incomplete)")
		}
	}
	return verdictOf(len(rep.Violations) > 0, !rep.Interrupted)
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
