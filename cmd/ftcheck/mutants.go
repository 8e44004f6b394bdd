package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

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

// checkMutants re-runs the check on every mutant of p with the same model
// flags (args, minus any --mutant) and reports which property catches each
// one and the length of its shortest counterexample. A mutant that survives
// is reported as such: at these bounds the checker cannot tell it from the
// correct protocol.
func checkMutants(p *registry.Protocol, args []string, opt checker.Options, asJSON bool, stdout io.Writer) error {
	var base []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--mutants" || a == "-mutants" || strings.HasPrefix(a, "--mutants=") ||
			a == "--json" || a == "-json" || a == "--quiet" || a == "-quiet" || a == "--por" || a == "-por" || strings.HasPrefix(a, "--por="):
		case a == "--mutant" || a == "-mutant" || a == "--out" || a == "-out" || a == "--workers" || a == "-workers" ||
			a == "--max-states" || a == "--max-depth" || a == "--property" || a == "-property":
			i++
		case strings.HasPrefix(a, "--mutant=") || strings.HasPrefix(a, "--out=") || strings.HasPrefix(a, "--workers=") ||
			strings.HasPrefix(a, "--max-states=") || strings.HasPrefix(a, "--max-depth=") || strings.HasPrefix(a, "--property="):
		default:
			base = append(base, a)
		}
	}
	opt.Progress = nil
	var rows []mutantRow
	if !asJSON {
		fmt.Fprintf(stdout, "\nmutants at the same bounds:\n  %-28s %-8s %-16s %6s %10s %8s\n", "mutant", "caught", "property", "steps", "states", "seconds")
	}
	for _, m := range p.Mutants {
		r, err := p.Build(append(append([]string{}, base...), "--mutant", m.Name))
		if err != nil {
			return fmt.Errorf("mutant %s: %w", m.Name, err)
		}
		res := r.BFS(opt)
		if res.Err != nil {
			return fmt.Errorf("mutant %s: %w", m.Name, res.Err)
		}
		row := mutantRow{Mutant: m.Name, States: res.States, Complete: res.Complete, Seconds: res.Seconds}
		if len(res.Violations) > 0 {
			tr := res.Violations[0]
			row.Caught, row.Property, row.Steps = true, tr.Violation.Property, len(tr.Steps)
		}
		rows = append(rows, row)
		if !asJSON {
			caught, prop, steps := "SURVIVED", "-", "-"
			if row.Caught {
				caught, prop, steps = "yes", row.Property, fmt.Sprint(row.Steps)
			}
			fmt.Fprintf(stdout, "  %-28s %-8s %-16s %6s %10d %8.2f\n", m.Name, caught, prop, steps, row.States, row.Seconds)
		}
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"mutants": rows})
	}
	return nil
}
