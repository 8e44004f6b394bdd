package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/ftkernel/ftkernel/registry"
)

type listEntry struct {
	Name       string   `json:"name"`
	Doc        string   `json:"doc"`
	Properties []string `json:"properties"`
	Mutants    []string `json:"mutants"`
	// Details carries kinds and docs, for people.
	PropertyDetails []registry.PropInfo   `json:"property_details"`
	MutantDetails   []registry.MutantInfo `json:"mutant_details"`
}

func cmdList(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print a JSON list")
	if err := parseFlags(fs, args, stdout, "list", "ftcheck list [flags]"); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageFor("ftcheck list -h", "list: unexpected argument %q", fs.Arg(0))
	}
	var out []listEntry
	for _, p := range registry.All() {
		props, err := p.Properties()
		if err != nil {
			return fmt.Errorf("list %s: %w", p.Name, err)
		}
		e := listEntry{Name: p.Name, Doc: p.Doc, Properties: []string{}, Mutants: []string{},
			PropertyDetails: props, MutantDetails: p.Mutants}
		for _, pr := range props {
			e.Properties = append(e.Properties, pr.Name)
		}
		for _, m := range p.Mutants {
			e.Mutants = append(e.Mutants, m.Name)
		}
		out = append(out, e)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for _, e := range out {
		fmt.Fprintf(stdout, "%s — %s\n  properties:\n", e.Name, e.Doc)
		for _, p := range e.PropertyDetails {
			tag := ""
			if p.ExpectFail {
				tag = " (expected to fail; check it by name)"
			}
			fmt.Fprintf(stdout, "    %-18s %-10s %s%s\n", p.Name, p.Kind, p.Doc, tag)
		}
		fmt.Fprintf(stdout, "  mutants (--mutant NAME):\n")
		for _, m := range e.MutantDetails {
			fmt.Fprintf(stdout, "    %-26s %s\n", m.Name, m.Doc)
		}
	}
	return nil
}
