package all

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/gossipfd"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// eventuallyArgs are the flags that give a configuration of forgetConfigs
// its Eventually properties: gossipfd's completeness-eventually needs
// --liveness; ringfd always has strong-completeness and ring-repair; ERA,
// correction and replica have none (their termination and agreement are
// Quiescence and Invariant properties, which TestForgetSoundness compares).
func eventuallyArgs(protocol string, args []string) []string {
	if protocol == "gossipfd" {
		return append(append([]string(nil), args...), "--liveness")
	}
	return args
}

// TestForgetEventuallySoundness: on every configuration of forgetConfigs
// whose model has Eventually properties, and every mutant of its protocol,
// the graph search (lassos) that forgets crashed processes finds the same
// violated Eventually properties and the same bounds (worst steps and
// time in ¬P) as the plain one, and its counterexamples replay on both
// models (envtest.CompareForgetEventually); on a model with a symmetry the
// same holds of the two symmetric searches
// (envtest.CompareForgetEventuallySymmetric). Without FTKERNEL_LONG=1 a
// comparison with a graph search over 10,000 states is skipped (logged):
// the configurations with Eventually properties have 5,313 (gossipfd) and
// 9,227 (ringfd) states, and their mutants, where the verdicts differ from
// "holds", run up to that bound. It logs the state counts and the
// verdicts, and fails if no run had an Eventually property violated (the
// comparison would then only ever compare "holds" with "holds").
func TestForgetEventuallySoundness(t *testing.T) {
	long := os.Getenv("FTKERNEL_LONG") == "1"
	bound, mutantBound := int64(3_000_000), int64(3_000_000)
	if !long {
		bound, mutantBound = 10_000, 10_000
	}
	var states, forgot [2]int64
	runs, violations := 0, 0
	for _, c := range forgetConfigs {
		if c.long && !long {
			continue
		}
		eachVariant(t, c.protocol, c.args, func(name string, args []string, mut string) bool {
			args = eventuallyArgs(c.protocol, args)
			plain, forget := forgetPair(t, c.protocol, args)
			rep, err := envtest.CompareForgetEventually(plain, forget, bound)
			if errors.Is(err, envtest.ErrIncomplete) && !long {
				t.Logf("%-64s skipped: over %d states (FTKERNEL_LONG=1 runs it)", name, bound)
				return true
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if rep.Properties == 0 {
				t.Logf("%-64s no Eventually property", name)
				return true
			}
			runs++
			states[0] += rep.States
			forgot[0] += rep.ForgetStates
			if rep.Violated != "" {
				violations++
			}
			t.Logf("%-64s states %7d → %7d, violated {%s}, bounds {%s}", name, rep.States, rep.ForgetStates, rep.Violated, rep.Bounds)
			skip := rep.States > mutantBound
			if sp, sf, ok := symmetricPair(t, c.protocol, args); ok {
				srep, err := envtest.CompareForgetEventuallySymmetric(sp, sf, bound)
				if err != nil && !(errors.Is(err, envtest.ErrIncomplete) && !long) {
					t.Fatalf("%s, symmetric: %v", name, err)
				}
				if err == nil {
					if srep.Violated != rep.Violated || srep.Bounds != rep.Bounds {
						t.Fatalf("%s: symmetric graph search: violated {%s}, bounds {%s}; without symmetry {%s}, {%s}", name, srep.Violated, srep.Bounds, rep.Violated, rep.Bounds)
					}
					states[1] += srep.States
					forgot[1] += srep.ForgetStates
					t.Logf("%-64s symmetric states %7d → %7d", name, srep.States, srep.ForgetStates)
				}
			}
			return skip || c.noMutants
		})
	}
	if runs == 0 || violations == 0 {
		t.Fatalf("%d runs with Eventually properties, %d with a violated one: want both > 0 (the comparison would be vacuous)", runs, violations)
	}
	t.Logf("%d runs (%d with a violated Eventually property): total states %d without forgetting, %d with (%.1f%%); symmetric %d and %d",
		runs, violations, states[0], forgot[0], 100*float64(forgot[0])/float64(max(states[0], 1)), states[1], forgot[1])
}

// TestForgetEventuallyGuardCatchesWrongForget: a Forget that drops the
// round of a crashed host (the test-only gossipfd
// MutantForgetDropsRound, in fd.ForgetMutants) makes
// completeness-eventually expect a declaration of every host that crashed
// after round 0 or later, as if it had crashed after round 0: the
// forgetting graph search finds a violation the plain one does not, and
// envtest.CompareForgetEventually (and its symmetric variant) says so,
// while the same configuration (forgetConfigs' gossipfd --timing bounded
// --detect-bound 7 --max-rounds 8, with --liveness) with the correct Forget passes.
// (ringfd's Eventually properties, strong-completeness and ring-repair,
// read live daemons and processes only, so no Forget of a crashed one can
// change their verdicts: gossipfd is the protocol where this comparison
// has something to catch.)
func TestForgetEventuallyGuardCatchesWrongForget(t *testing.T) {
	args := []string{"--timing", "bounded", "--detect-bound", "7", "--max-rounds", "8", "--liveness"}
	want, _ := forgetPair(t, "gossipfd", args)
	build := func(mut mutant.Name, forget bool) *env.Model {
		cfg := fd.Config{N: 4, Variant: fd.BRR, Cleanup: 4, Ping: true, TGossip: 4, PingTimeout: 3, MaxRounds: 8, Mutant: mut}
		m, err := gossipfd.NewEnvModel(gossipfd.EnvParams{Node: cfg, Crashes: 1, Delta: 1, DetectBound: 7, Liveness: true, ForgetCrashed: forget})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if got := build(mutant.None, false).Name(); got != want.Name() {
		t.Fatalf("the test's model is %q, not the list's %q", got, want.Name())
	}
	for _, mut := range []mutant.Name{mutant.None, fd.MutantForgetDropsRound} {
		plain, forget := build(mut, false), build(mut, true)
		sp, sf := gossipfd.SymmetricEnv{Model: plain}, gossipfd.SymmetricEnv{Model: forget}
		for _, sym := range []bool{false, true} {
			var err error
			if sym {
				_, err = envtest.CompareForgetEventuallySymmetric(sp, sf, 100_000)
			} else {
				_, err = envtest.CompareForgetEventually(plain, forget, 100_000)
			}
			switch {
			case mut == mutant.None && err != nil:
				t.Fatalf("correct Forget, symmetry %v: %v", sym, err)
			case mut != mutant.None && (err == nil || !strings.Contains(err.Error(), "violated {} without forgetting, {completeness-eventually} with")):
				t.Fatalf("Forget mutant %s, symmetry %v: the guard says %v, want completeness-eventually violated with forgetting only", mut, sym, err)
			case mut != mutant.None:
				t.Logf("Forget mutant %s, symmetry %v: caught: %v", mut, sym, err)
			}
		}
	}
}
