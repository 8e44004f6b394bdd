package all

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	"github.com/ftkernel/ftkernel/registry"
)

// TestForgetSymmetrySoundness: on every configuration of forgetConfigs
// whose model has a symmetry (a checker.CanonicalEncoder: gossipfd's
// rotations of host ids, ringfd's rotations of the identity ring) and every
// mutant of its protocol, the symmetric search that forgets crashed
// processes finds the same violated properties as the symmetric plain
// search and as the forgetting search without symmetry, has no more
// states than the symmetric plain search, and the three have the same
// classes of visited and of quiescent worlds (the plain ones mapped through
// Forget); its counterexamples replay on both models
// (envtest.CompareForgetSymmetric, whose doc comment says why these are the
// comparable quantities). Bounds and skips as in TestForgetSoundness. It
// logs the state counts.
func TestForgetSymmetrySoundness(t *testing.T) {
	long := os.Getenv("FTKERNEL_LONG") == "1"
	bound, mutantBound := int64(3_000_000), int64(3_000_000)
	if !long {
		bound, mutantBound = 30_000, 4_000
	}
	var states, forgot, unreduced int64
	runs := 0
	for _, c := range forgetConfigs {
		if c.long && !long {
			continue
		}
		eachVariant(t, c.protocol, c.args, func(name string, args []string, mut string) bool {
			plain, forget, ok := symmetricPair(t, c.protocol, args)
			if !ok {
				if mut == "" {
					t.Logf("%-64s no symmetry", name)
				}
				return true
			}
			rep, err := envtest.CompareForgetSymmetric(plain, forget, bound)
			if errors.Is(err, envtest.ErrIncomplete) && !long {
				t.Logf("%-64s skipped: over %d states (FTKERNEL_LONG=1 runs it)", name, bound)
				return true
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			runs++
			states += rep.States
			forgot += rep.ForgetStates
			unreduced += rep.ForgetPlainStates
			t.Logf("%-64s symmetric states %7d → %7d (forgetting without symmetry %7d), classes %7d, quiescent %5d {%s}", name,
				rep.States, rep.ForgetStates, rep.ForgetPlainStates, rep.Classes, rep.QuiescentClasses, rep.Violated)
			return rep.States > mutantBound || c.noMutants
		})
	}
	if runs == 0 {
		t.Fatal("no configuration with a symmetry was compared")
	}
	t.Logf("%d runs: symmetric total states %d without forgetting, %d with (%.1f%%); %d with forgetting and without symmetry",
		runs, states, forgot, 100*float64(forgot)/float64(max(states, 1)), unreduced)
}

// symmetricPair builds protocol with args, without and with
// --forget-crashed, as the models its runners search (registry.EnvChecked);
// ok is false when they have no symmetry.
func symmetricPair(t *testing.T, protocol string, args []string) (plain, forget envtest.Symmetric, ok bool) {
	t.Helper()
	var out [2]envtest.Symmetric
	for i, a := range [][]string{args, append(append([]string(nil), args...), "--forget-crashed")} {
		m, isEnv := registry.EnvChecked(modeltest.Build(t, protocol, a...))
		if !isEnv {
			t.Fatalf("%s %s: not an env model", protocol, strings.Join(a, " "))
		}
		s, isSym := m.(envtest.Symmetric)
		if !isSym {
			return nil, nil, false
		}
		out[i] = s
	}
	return out[0], out[1], true
}
