package all

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/correction"
	"github.com/ftkernel/ftkernel/models/era"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// forgetConfigs are the models on which forgetting crashed processes
// (--forget-crashed, checker/env forget.go) is compared with the plain
// search, each with every mutant of its protocol. The short set runs in
// CI; FTKERNEL_LONG=1 adds the rest.
var forgetConfigs = append([]reductionRow{
	{"era", "--n 3 --crashes 1", false, false},
	{"era", "--n 2 --crashes 1 --agreements 2", false, false},
	{"era", "--n 3 --crashes 1 --topology string --op ulfm", false, false},
	{"correction", "--P 2", false, false},
	{"correction", "--P 3 --timing rounds --faults 2", false, false},
	{"era", "--n 3 --crashes 2", false, false},
	{"gossipfd", "--timing bounded --max-rounds 8 --detect-bound 9", false, false},
	// --detect-bound 9 (≥ --max-rounds 8) leaves both completeness
	// properties vacuous; 7, the default here (T_cleanup 4 + W 3 for BRR
	// at n = 4: gossipfd.EnvDetectBound), makes them check the crashes
	// after round 0 (completeness-eventually under --liveness,
	// TestForgetEventuallySoundness), and never-suspect violates them.
	{"gossipfd", "--timing bounded --detect-bound 7 --max-rounds 8", false, false},
	{"replica", "", false, false},
	{"ringfd", "--n 3 --proc-crashes=false", false, false},
	// With process crashes too, ringfd's mutants (observe-successor,
	// forward-always) pass 3,000,000 states (as in TestPersistentSoundness):
	// that configuration alone.
	{"ringfd", "--n 3", true, true},
	{"ringfd", "--n 3 --proc-crashes=false --bmg ompi --network fifo", true, true}, // forward-always: over 3,000,000 states
	{"replica", "--fd brr", false, false},
	{"replica", "--program gather-sum", true, false},
	{"replica", "--program any-tag-diff", true, false},
	{"replica", "--fd dbrr --crashes 2", true, false},
	{"replica", "--replicate-rank0", true, false},
	{"replica", "--degree 3 --crashes 2", true, false},
	{"replica", "--program mid-example --procs 3", true, false},
	{"gossipfd", "--timing bounded --variant dbrr --ping=false --max-rounds 8", true, false},
	{"gossipfd", "--timing bounded --routing live --max-rounds 8", true, false},
	{"gossipfd", "--timing bounded --variant random --cleanup 3 --max-rounds 8", true, false},
	{"gossipfd", "--timing bounded --routing live --crashes 2 --max-rounds 6", true, false},
	{"gossipfd", "--timing bounded --n 5 --max-rounds 8", true, false},
	{"era", "--n 3 --crashes 2 --network fifo", true, false},
	{"era", "--n 3 --crashes 1 --lose-on-crash", true, false},
	{"era", "--n 3 --crashes 1 --topology star --gc", true, false},
	{"era", "--n 3 --crashes 2 --op ulfm --blocking --agreements 2 --values 1", true, false},
	{"era", "--n 4 --crashes 1", true, false},
}, correctionP3Rows...)

// correctionP3Rows are the long corrected-broadcast rows the forgetting
// and dropping guards share: asynchronous P=3, every correction kind and
// start, loss on crash, the early rule, gossip dissemination.
var correctionP3Rows = []reductionRow{
	{"correction", "--P 3", true, false},
	{"correction", "--P 3 --faults 2", true, false},
	{"correction", "--P 3 --correction opportunistic", true, false},
	{"correction", "--P 3 --correction optimized", true, false},
	{"correction", "--P 3 --correction delayed", true, false},
	{"correction", "--P 3 --correction opportunistic --start overlapped", true, false},
	{"correction", "--P 3 --lose-on-crash", true, false},
	{"correction", "--P 3 --early silent --start overlapped", true, false},
	{"correction", "--P 3 --tree gossip --faults 2", true, false},
}

// TestForgetSoundness: on every configuration above and every mutant of
// its protocol, with and without persistent sets (on both sides), the
// search that forgets crashed processes finds the same violated
// properties as the plain one, its quiescent worlds are exactly the plain
// quiescent worlds mapped through Forget (by encoding), without
// persistent sets it visits no more states, and its counterexamples
// replay on both models (envtest.CompareForget). Without FTKERNEL_LONG=1
// a search over 30,000 states is skipped (logged), and so are the mutants
// of a configuration over 4,000 states. It logs the state counts.
func TestForgetSoundness(t *testing.T) {
	compareEachVariant(t, forgetConfigs, "--forget-crashed", "forgetting", func(plain, forget *env.Model, bound int64, por bool) (reductionCounts, error) {
		rep, err := envtest.CompareForget(plain, forget, bound, por)
		return reductionCounts{rep.States, rep.ForgetStates, fmt.Sprintf("generated %9d → %9d, quiescent %6d → %6d {%s}",
			rep.Transitions, rep.ForgetTransitions, rep.Quiescent, rep.ForgetQuiescent, rep.Violated)}, err
	})
}

// forgetPair builds protocol with args, without and with --forget-crashed.
func forgetPair(t *testing.T, protocol string, args []string) (plain, forget *env.Model) {
	t.Helper()
	return pairWith(t, protocol, args, "--forget-crashed")
}

// TestForgetGuardCatchesWrongForget: a Forget that drops a field a
// property reads of a crashed process (the test-only ForgetMutants: ERA's
// Result, which irrevocability reads of the actor of a crash step;
// correction's cause of coloring, which correction-colored-silent reads)
// makes envtest.CompareForget fail on the violated properties, while the
// same configuration with the correct Forget passes.
func TestForgetGuardCatchesWrongForget(t *testing.T) {
	eraPair := func(m erasm.Op, mut string) (*env.Model, *env.Model) {
		p := era.Params{N: 3, Crashes: 1, Agreements: 1, Values: 2, Topology: erasm.Binary, Op: m}
		p.Mutant = mutant.Name(mut)
		build := func(forget bool) *env.Model {
			p.ForgetCrashed = forget
			mm, err := era.NewModel(p, era.AllInputVectors(p))
			if err != nil {
				t.Fatal(err)
			}
			return mm
		}
		return build(false), build(true)
	}
	corrPair := func(mut string) (*env.Model, *env.Model) {
		p := correction.Params{P: 2, Tree: corrsm.Tree{Kind: corrsm.BinomialInterleaved, K: 2}, Correction: corrsm.Checked,
			Start: corrsm.Synchronized, Faults: 1, Compact: true}
		p.Mutant = mutant.Name(mut)
		build := func(forget bool) *env.Model {
			p.ForgetCrashed = forget
			mm, err := correction.NewModel(p)
			if err != nil {
				t.Fatal(err)
			}
			return mm
		}
		return build(false), build(true)
	}
	for _, c := range []struct {
		name  string
		pair  func(mut string) (*env.Model, *env.Model)
		wrong string
		prop  string
	}{
		{"era n=3 crashes=1", func(mut string) (*env.Model, *env.Model) { return eraPair(erasm.And, mut) }, string(erasm.MutantForgetDropsResult), era.Irrevocability},
		{"correction P=2 faults=1", corrPair, string(corrsm.MutantForgetDropsCause), correction.ColoredSilentName},
	} {
		for _, mut := range []string{"", c.wrong} {
			plain, forget := c.pair(mut)
			for _, por := range []bool{false, true} {
				_, err := envtest.CompareForget(plain, forget, 1_000_000, por)
				switch {
				case mut == "" && err != nil:
					t.Fatalf("%s, correct Forget, por %v: %v", c.name, por, err)
				case mut != "" && (err == nil || !strings.Contains(err.Error(), "violated") || !strings.Contains(err.Error(), c.prop)):
					t.Fatalf("%s, Forget mutant %s, por %v: the guard says %v, want a difference in the violated properties naming %s", c.name, mut, por, err, c.prop)
				case mut != "":
					t.Logf("%s, Forget mutant %s, por %v: caught: %v", c.name, mut, por, err)
				}
			}
		}
	}
}
