package replica

import "github.com/ftkernel/ftkernel/internal/mutant"

func mutantName(s string) mutant.Name { return mutant.Name(s) }
