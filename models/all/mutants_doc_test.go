package all

import (
	"testing"

	"github.com/ftkernel/ftkernel/registry"
)

// TestMutantsDocumented: every registered protocol's mutants have a name
// and say what they break (the Doc `ftcheck list` prints), and no name is
// listed twice.
func TestMutantsDocumented(t *testing.T) {
	n := 0
	for _, p := range registry.All() {
		seen := map[string]bool{}
		for _, m := range p.Mutants {
			n++
			if m.Name == "" || m.Doc == "" {
				t.Errorf("%s: mutant %q has no name or no doc", p.Name, m.Name)
			}
			if seen[m.Name] {
				t.Errorf("%s: mutant %q listed twice", p.Name, m.Name)
			}
			seen[m.Name] = true
		}
	}
	if n == 0 {
		t.Fatal("no registered protocol lists a mutant")
	}
}
