package all

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	"github.com/ftkernel/ftkernel/registry"
)

// reductionRow is one configuration of a reduction guard's list.
type reductionRow struct {
	protocol  string
	args      string
	long      bool // only with FTKERNEL_LONG=1
	noMutants bool // the configuration alone
}

// reductionCounts is what one comparison of a plain and a reduced model
// reports: the states of each, and the rest of its log line.
type reductionCounts struct {
	states, reduced int64
	line            string
}

// compareEachVariant runs compare, without and with persistent sets (on
// both sides), on every row of rows and every mutant of its protocol: the
// plain model against the one built with flag added. Without
// FTKERNEL_LONG=1 the long rows are left out, a search over 30,000 states
// is skipped (logged), and so are the mutants of a configuration over
// 4,000 states. It logs every comparison and the totals; what names the
// reduction ("forgetting").
func compareEachVariant(t *testing.T, rows []reductionRow, flag, what string, compare func(plain, reduced *env.Model, bound int64, por bool) (reductionCounts, error)) {
	t.Helper()
	long := os.Getenv("FTKERNEL_LONG") == "1"
	bound, mutantBound := int64(3_000_000), int64(3_000_000)
	if !long {
		bound, mutantBound = 30_000, 4_000
	}
	var states, reduced [2]int64
	for _, c := range rows {
		if c.long && !long {
			continue
		}
		eachVariant(t, c.protocol, c.args, func(name string, args []string, mut string) bool {
			plain, red := pairWith(t, c.protocol, args, flag)
			skip := false
			for i, por := range []bool{false, true} {
				rep, err := compare(plain, red, bound, por)
				if errors.Is(err, envtest.ErrIncomplete) && !long {
					t.Logf("%-64s skipped: over %d states (FTKERNEL_LONG=1 runs it)", name, bound)
					return true
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				states[i] += rep.states
				reduced[i] += rep.reduced
				t.Logf("%-64s por=%-5v states %8d → %8d, %s", name, por, rep.states, rep.reduced, rep.line)
				skip = skip || rep.states > mutantBound
			}
			return skip || c.noMutants
		})
	}
	for i, por := range []bool{false, true} {
		t.Logf("por=%v: total states %d without %s, %d with (%.1f%%)", por, states[i], what, reduced[i], 100*float64(reduced[i])/float64(max(states[i], 1)))
	}
}

// pairWith builds protocol with args, without and with flag.
func pairWith(t *testing.T, protocol string, args []string, flag string) (plain, reduced *env.Model) {
	t.Helper()
	plain, ok := registry.EnvModel(modeltest.Build(t, protocol, args...))
	if !ok {
		t.Fatalf("%s %s: not an env model", protocol, strings.Join(args, " "))
	}
	reduced, _ = registry.EnvModel(modeltest.Build(t, protocol, append(args, flag)...))
	return plain, reduced
}
