package all

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/correction"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// dropConfigs are the models on which dropping absorbed messages
// (--drop-absorbed, checker/env absorb_drop.go) is compared with the plain
// search, each with every mutant of its protocol: the models whose nodes
// declare absorbed messages (env.Absorber): corrected broadcast's and
// the consensus variant of atomic broadcast's. The
// short set runs in CI; FTKERNEL_LONG=1 adds the rest.
var dropConfigs = append([]reductionRow{
	{"correction", "--P 2", false, false},
	{"correction", "--P 3 --timing rounds --faults 2", false, false},
	{"correction", "--P 3 --faults 0", false, false},
	{"correction", "--P 2 --forget-crashed --lose-on-crash", false, false},
	{"correction", "--P 3 --faults 2 --forget-crashed", true, false},
	{"correction", "--P 3 --cover-stop --no-over-root", true, false},
	{"correction", "--P 4 --faults 1 --timing rounds", true, false},
	{"abcast", "--variant consensus --core 3 --messages 1 --k 2 --crashes 1 --consensus oracle", false, false},
	{"abcast", "--variant consensus --core 2 --messages 2 --k 2 --crashes 0", false, false},
	{"abcast", "--variant consensus --core 3 --messages 1 --k 3 --crashes 1 --consensus oracle --detector coordinator --forget-crashed", false, false},
	{"abcast", "--variant consensus --core 3 --messages 1 --k 3 --crashes 1 --detector coordinator --forget-crashed", true, true}, // batch-overlap: over 3,000,000 states
}, correctionP3Rows...)

// TestDropAbsorbedSoundness: on every configuration above and every
// mutant of its protocol, with and without persistent sets (on both
// sides), the search that drops absorbed messages finds the same violated
// properties and the same quiescent worlds as the plain one, without
// persistent sets it visits exactly the plain worlds less their absorbed
// messages and no more states, and its counterexamples replay
// (envtest.CompareDrop). Without FTKERNEL_LONG=1 a search over 30,000
// states is skipped (logged), and so are the mutants of a configuration
// over 4,000 states. It logs the state counts.
func TestDropAbsorbedSoundness(t *testing.T) {
	compareEachVariant(t, dropConfigs, "--drop-absorbed", "dropping", func(plain, drop *env.Model, bound int64, por bool) (reductionCounts, error) {
		rep, err := envtest.CompareDrop(plain, drop, bound, por)
		return reductionCounts{rep.States, rep.DropStates, fmt.Sprintf("generated %9d → %9d, quiescent %6d {%s}",
			rep.Transitions, rep.DropTransitions, rep.Quiescent, rep.Violated)}, err
	})
}

// TestDropGuardCatchesWrongAbsorbs: an Absorbs that claims a message that
// is not a no-op (the test-only corrsm.MutantAbsorbUnheard: a correction
// message from a side not heard from yet, which the receiver records and
// which may stop its sends that way) makes envtest.CompareDrop fail, with and without
// persistent sets, while the same configuration with the correct Absorbs
// passes.
func TestDropGuardCatchesWrongAbsorbs(t *testing.T) {
	for _, mut := range []mutant.Name{"", corrsm.MutantAbsorbUnheard} {
		p := correction.Params{P: 3, Tree: corrsm.Tree{Kind: corrsm.BinomialInterleaved, K: 2}, Correction: corrsm.Checked,
			Start: corrsm.Synchronized, Compact: true, Mutant: mut}
		build := func(drop bool) *env.Model {
			p.DropAbsorbed = drop
			m, err := correction.NewModel(p)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		plain, drop := build(false), build(true)
		for _, por := range []bool{false, true} {
			rep, err := envtest.CompareDrop(plain, drop, 1_000_000, por)
			switch {
			case mut == "" && err != nil:
				t.Fatalf("correct Absorbs, por %v: %v", por, err)
			case mut != "" && err == nil:
				t.Fatalf("Absorbs mutant %s, por %v: not caught (%d → %d states)", mut, por, rep.States, rep.DropStates)
			case mut != "":
				t.Logf("Absorbs mutant %s, por %v: caught: %v", mut, por, err)
			default:
				t.Logf("correct Absorbs, por %v: %d → %d states, %d quiescent worlds", por, rep.States, rep.DropStates, rep.Quiescent)
			}
		}
	}
}
