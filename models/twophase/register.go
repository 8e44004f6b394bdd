package twophase

import (
	"flag"
	"fmt"

	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
)

func init() {
	registry.Register(&registry.Protocol{
		Name:   "twophase",
		Doc:    "TLA+ TwoPhase commit (Gray & Lamport), the calibration model: RM=3 gives 288 distinct / 1,146 generated",
		Define: defineTwoPhase,
		Mutants: []registry.MutantInfo{{Name: "broken-commit",
			Doc: "the TM commits without waiting for every RM to be prepared"},
			{Name: "abort-typo", Doc: "TMAbort sets tmState to a value outside its type (only TPTypeOK sees it)"}},
	})
}

func defineTwoPhase(fs *flag.FlagSet) registry.Builder {
	rm := fs.Int("rm", 3, fmt.Sprintf("number of resource managers, 1 … %d", MaxRM))
	mut := fs.String("mutant", "", "broken-commit: TMCommit without all RMs prepared; abort-typo: TMAbort writes a tmState outside the type")
	return func() (registry.Runner, error) {
		if err := flagcheck.Int("rm", int64(*rm), 1, MaxRM, ""); err != nil {
			return nil, err
		}
		m, err := New(*rm)
		if err != nil {
			return nil, err
		}
		switch *mut {
		case "":
		case "broken-commit":
			m.BrokenCommit = true
		case "abort-typo":
			m.AbortTypo = true
		default:
			return nil, registry.ErrUnknownMutant("twophase", *mut)
		}
		return registry.Erase[State](m, "twophase", map[string]string{"rm": fs.Lookup("rm").Value.String(), "mutant": *mut}), nil
	}
}
