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
	"github.com/ftkernel/ftkernel/models/gossipfd"
	"github.com/ftkernel/ftkernel/registry"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// forgetContractArgs are the small configurations, with crashes, on which
// TestForgetContract checks every registered model that forgets crashed
// processes (a model missing here fails the test).
var forgetContractArgs = map[string][]string{
	"abcast": {"--variant bb --core 3 --messages 1 --crashes 1",
		"--variant consensus --core 3 --messages 1 --k 3 --crashes 1 --detector coordinator"},
	"correction": {"--P 3 --faults 2", "--P 3 --timing rounds --faults 2"},
	"era":        {"--n 3 --crashes 2", "--n 3 --crashes 1 --topology string --op ulfm"},
	"eventlogger": {"--logger parallel --procs 2 --f 1 --crashes 1",
		"--logger classic --procs 1 --f 1 --crashes 1"},
	"gossipfd": {"--timing bounded --detect-bound 7"},
	"replica":  {"--crashes 2"},
	"ringfd":   {"--n 3"},
}

// forgetContractSample is what TestForgetContract compares per
// configuration (and TestForgetContractCatchesWrongForget per Forget), and
// forgetMutantSample per protocol mutant.
var (
	forgetContractSample = envtest.ForgetSample{States: 2000, Seed: 1, Walks: 20, Depth: 200}
	forgetMutantSample   = envtest.ForgetSample{States: 300, Seed: 1, Walks: 6, Depth: 100}
)

// TestForgetContract: on every registered model with --forget-crashed (a
// model not in forgetContractArgs whose builder refuses the flag is logged
// and left out), on the
// configurations above and every mutant of the protocol, every property
// evaluates the same on the sampled worlds and steps as on their images
// with the crashed processes forgotten, the enabled actions and persistent
// sets are the same, and the forgetting model reaches exactly those images
// (envtest.CheckForgetContract). Each configuration must reach worlds that
// forgetting changes.
func TestForgetContract(t *testing.T) {
	checked := map[string]bool{}
	for _, p := range registry.All() {
		configs, ok := forgetContractArgs[p.Name]
		if !ok {
			if _, err := p.Build([]string{"--forget-crashed"}); err == nil {
				t.Fatalf("%s forgets crashed processes but has no configuration in forgetContractArgs", p.Name)
			} else {
				t.Logf("%-10s left out: --forget-crashed: %v", p.Name, err)
			}
			continue
		}
		for _, args := range configs {
			eachVariant(t, p.Name, args, func(name string, a []string, mut string) bool {
				plain, forget := forgetPair(t, p.Name, a)
				sample := forgetContractSample
				if mut != "" {
					sample = forgetMutantSample
				}
				rep := checkForgetContract(t, name, plain, forget, sample)
				t.Logf("%-64s worlds %4d (crashed %4d, changed %4d), steps %5d (crashes %4d), verdicts %6d (violations %d)",
					name, rep.Worlds, rep.Crashed, rep.Changed, rep.Steps, rep.CrashSteps, rep.Verdicts, rep.Violations)
				return false
			})
		}
		checked[p.Name] = true
	}
	for name := range forgetContractArgs {
		if !checked[name] {
			t.Errorf("%s is not registered", name)
		}
	}
}

// checkForgetContract runs envtest.CheckForgetContract on sample and fails
// t on an error or when no world compared was changed by forgetting or no
// crash step was compared.
func checkForgetContract(t *testing.T, name string, plain, forget *env.Model, sample envtest.ForgetSample) envtest.ForgetContractReport {
	t.Helper()
	rep, err := envtest.CheckForgetContract(plain, forget, sample)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if rep.Changed == 0 || rep.CrashSteps == 0 {
		t.Fatalf("%s: %d worlds compared, %d crashed, %d changed by forgetting, %d crash steps: vacuous", name, rep.Worlds, rep.Crashed, rep.Changed, rep.CrashSteps)
	}
	return rep
}

// TestForgetContractCatchesWrongForget: each test-only Forget mutant that
// drops what a property reads of a crashed process makes
// envtest.CheckForgetContract name that property, on a small configuration
// whose correct Forget passes: ERA's input under the ulfm op
// (erasm.MutantForgetDropsInput: validity reads a crashed process's
// contribution), ERA's Result (irrevocability, at the crash step),
// correction's cause of coloring (correction-colored-silent, at the crash
// step) and gossipfd's round (completeness reads a crashed host's last
// round). gossipfd's MutantForgetKeepsHost0 keeps more than the
// properties read, which is sound: the guard passes it.
func TestForgetContractCatchesWrongForget(t *testing.T) {
	era3 := func(op erasm.Op) func(mutant.Name, bool) (*env.Model, error) {
		return func(mut mutant.Name, forget bool) (*env.Model, error) {
			p := era.Params{N: 3, Crashes: 1, Agreements: 1, Values: 2, Topology: erasm.Binary, Op: op, Mutant: mut, ForgetCrashed: forget}
			return era.NewModel(p, era.AllInputVectors(p))
		}
	}
	corr := func(mut mutant.Name, forget bool) (*env.Model, error) {
		return correction.NewModel(correction.Params{P: 2, Tree: corrsm.Tree{Kind: corrsm.BinomialInterleaved, K: 2}, Correction: corrsm.Checked,
			Start: corrsm.Synchronized, Faults: 1, Compact: true, Mutant: mut, ForgetCrashed: forget})
	}
	gossip := func(mut mutant.Name, forget bool) (*env.Model, error) {
		cfg := fd.Config{N: 4, Variant: fd.BRR, Cleanup: 4, Ping: true, TGossip: 4, PingTimeout: 3, MaxRounds: 8, Mutant: mut}
		return gossipfd.NewEnvModel(gossipfd.EnvParams{Node: cfg, Crashes: 1, Delta: 1, DetectBound: 7, ForgetCrashed: forget})
	}
	for _, c := range []struct {
		name  string
		build func(mutant.Name, bool) (*env.Model, error)
		mut   mutant.Name
		prop  string // "": the guard must pass the mutant
	}{
		{"era n=3 crashes=1 op=ulfm", era3(erasm.ULFM), erasm.MutantForgetDropsInput, era.Validity},
		{"era n=3 crashes=1", era3(erasm.And), erasm.MutantForgetDropsResult, era.Irrevocability},
		{"correction P=2 faults=1", corr, corrsm.MutantForgetDropsCause, correction.ColoredSilentName},
		{"gossipfd bounded detect-bound=7", gossip, fd.MutantForgetDropsRound, "completeness"},
		{"gossipfd bounded detect-bound=7", gossip, fd.MutantForgetKeepsHost0, ""},
	} {
		for _, mut := range []mutant.Name{mutant.None, c.mut} {
			plain, err := c.build(mut, false)
			if err != nil {
				t.Fatal(err)
			}
			forget, err := c.build(mut, true)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s, Forget mutant %q", c.name, mut)
			if mut == mutant.None || c.prop == "" {
				rep := checkForgetContract(t, name, plain, forget, forgetContractSample)
				t.Logf("%s: passes (%d worlds, %d changed by forgetting, %d crash steps)", name, rep.Worlds, rep.Changed, rep.CrashSteps)
				continue
			}
			_, err = envtest.CheckForgetContract(plain, forget, forgetContractSample)
			if err == nil || !strings.Contains(err.Error(), "property "+c.prop+" ") {
				t.Fatalf("%s: the guard says %v, want a different verdict of %s", name, err, c.prop)
			}
			t.Logf("%s: caught: %v", name, err)
		}
	}
}
