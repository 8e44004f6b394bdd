package all

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/registry"
)

// eachVariant calls f for protocol with the flags args, then once per
// mutant of the protocol (args plus --mutant NAME, in registry order). name
// is "protocol flags…", as the soundness tests log it. When f returns true
// for the correct protocol's run (mutant ""), the mutants are left out.
func eachVariant(t *testing.T, protocol, args string, f func(name string, args []string, mutant string) (skipMutants bool)) {
	t.Helper()
	p, err := registry.Lookup(protocol)
	if err != nil {
		t.Fatal(err)
	}
	for _, mut := range append([]string{""}, mutantNames(p)...) {
		a := strings.Fields(args)
		if mut != "" {
			a = append(a, "--mutant", mut)
		}
		name := fmt.Sprintf("%s %s", protocol, strings.Join(a, " "))
		if f(name, a, mut) && mut == "" {
			return
		}
	}
}

func mutantNames(p *registry.Protocol) []string {
	var out []string
	for _, m := range p.Mutants {
		out = append(out, m.Name)
	}
	return out
}
