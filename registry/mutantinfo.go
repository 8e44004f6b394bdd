package registry

import "github.com/ftkernel/ftkernel/internal/mutant"

// MutantInfos returns the rows `ftcheck list` and --mutants show for a
// protocol's mutants: names in the given order, each with its entry of docs
// (what the mutant breaks). A name without an entry gets an empty Doc,
// which TestMutantsDocumented refuses.
func MutantInfos(names []mutant.Name, docs map[mutant.Name]string) []MutantInfo {
	out := make([]MutantInfo, 0, len(names))
	for _, m := range names {
		out = append(out, MutantInfo{Name: string(m), Doc: docs[m]})
	}
	return out
}
