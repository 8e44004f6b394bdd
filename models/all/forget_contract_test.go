package all

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/registry"
)

// forgetContractArgs are the small configurations, with crashes, on which
// TestForgetContract checks every registered model that forgets crashed
// processes (a model missing here fails the test).
var forgetContractArgs = map[string][]string{
	"correction": {"--P 3 --faults 2", "--P 3 --timing rounds --faults 2"},
	"era":        {"--n 3 --crashes 2", "--n 3 --crashes 1 --topology string --op ulfm"},
	"gossipfd":   {"--timing bounded --detect-bound 7"},
	"replica":    {"--crashes 2"},
	"ringfd":     {"--n 3"},
}

// forgetContractSample is what TestForgetContract compares per
// configuration and mutant.
var forgetContractSample = envtest.ForgetSample{States: 150, Seed: 1, Walks: 12, Depth: 60}

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
			eachVariant(t, p.Name, args, func(name string, a []string, _ string) bool {
				plain, forget := forgetPair(t, p.Name, a)
				rep := checkForgetContract(t, name, plain, forget)
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

// checkForgetContract runs envtest.CheckForgetContract with
// forgetContractSample and fails t on an error or when no world compared
// was changed by forgetting.
func checkForgetContract(t *testing.T, name string, plain, forget *env.Model) envtest.ForgetContractReport {
	t.Helper()
	rep, err := envtest.CheckForgetContract(plain, forget, forgetContractSample)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if rep.Changed == 0 || rep.CrashSteps == 0 {
		t.Fatalf("%s: %d worlds compared, %d crashed, %d changed by forgetting, %d crash steps: vacuous", name, rep.Worlds, rep.Crashed, rep.Changed, rep.CrashSteps)
	}
	return rep
}

