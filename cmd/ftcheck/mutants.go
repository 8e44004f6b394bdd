package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/registry"
)

// mutantRow is one line of the --mutants table.
type mutantRow struct {
	Mutant   string  `json:"mutant"`
	Caught   bool    `json:"caught"`
	Property string  `json:"property,omitempty"`
	Steps    int     `json:"steps,omitempty"`
	States   int64   `json:"states"`
	Complete bool    `json:"complete"`
	Seconds  float64 `json:"seconds"`
}

// checkMutants re-runs the check on every mutant of p with the model
// flags set in fs and the options opt, and reports which property catches
// each one and the length of its shortest counterexample. A mutant that
// survives is reported as such (at these bounds the checker cannot tell it
// from the correct protocol) and makes the verdict errViolation; a run
// stopped by opt.Context ends the table and makes it errIncomplete. The
// rows are printed unless asJSON.
func checkMutants(p *registry.Protocol, fs *flag.FlagSet, opt checker.Options, asJSON bool, stdout io.Writer) ([]mutantRow, error, error) {
	own := flag.NewFlagSet(p.Name, flag.ContinueOnError)
	p.Define(own)
	var base []string
	fs.Visit(func(f *flag.Flag) {
		if own.Lookup(f.Name) != nil && f.Name != "mutant" {
			base = append(base, "--"+f.Name+"="+f.Value.String())
		}
	})
	opt.Progress = nil
	rows := []mutantRow{}
	var verdict error
	if !asJSON {
		fmt.Fprintf(stdout, "\nmutants at the same bounds:\n  %-28s %-8s %-16s %6s %10s %8s\n", "mutant", "caught", "property", "steps", "states", "seconds")
	}
	for _, m := range p.Mutants {
		r, err := p.Build(append(append([]string{}, base...), "--mutant", m.Name))
		if errors.Is(err, registry.ErrMutantNotHere) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("mutant %s: %w", m.Name, err)
		}
		res := r.BFS(opt)
		canceled := opt.Context != nil && opt.Context.Err() != nil
		if res.Err != nil && !canceled {
			return nil, nil, fmt.Errorf("mutant %s: %w", m.Name, res.Err)
		}
		row := mutantRow{Mutant: m.Name, States: res.States, Complete: res.Complete, Seconds: res.Seconds}
		if len(res.Violations) > 0 {
			tr := res.Violations[0]
			row.Caught, row.Property, row.Steps = true, tr.Violation.Property, len(tr.Steps)
		}
		caught, prop, steps := "SURVIVED", "-", "-"
		switch {
		case row.Caught:
			caught, prop, steps = "yes", row.Property, fmt.Sprint(row.Steps)
		case canceled:
			caught = "stopped"
		default:
			verdict = errViolation
		}
		rows = append(rows, row)
		if !asJSON {
			fmt.Fprintf(stdout, "  %-28s %-8s %-16s %6s %10d %8.2f\n", m.Name, caught, prop, steps, row.States, row.Seconds)
		}
		if canceled && !row.Caught {
			return rows, worse(verdict, errIncomplete), nil
		}
	}
	if !asJSON && verdict != nil {
		fmt.Fprintln(stdout, "a mutant survived: the checked properties do not tell it from the protocol at these bounds")
	}
	return rows, verdict, nil
}
