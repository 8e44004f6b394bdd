package all

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/gossipfd"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	"github.com/ftkernel/ftkernel/registry"
	gfd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
	rfd "github.com/ftkernel/ftkernel/statemachine/ringfd"
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
// comparable quantities). Without FTKERNEL_LONG=1 a comparison with a
// search over 6,000 states is skipped (logged), and so are the mutants of
// a configuration whose symmetric search has over 2,000 states. It logs
// the state counts.
func TestForgetSymmetrySoundness(t *testing.T) {
	long := os.Getenv("FTKERNEL_LONG") == "1"
	bound, mutantBound := int64(3_000_000), int64(3_000_000)
	if !long {
		// CI: the correct configurations and the mutants of those whose
		// symmetric search has at most 2,000 states (gossipfd's 1,375;
		// ringfd's 3,101 runs alone), every search bounded by 6,000.
		bound, mutantBound = 6_000, 2_000
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

// TestForgetCommutesWithRotation checks the premise (P) of
// envtest.CompareForgetSymmetric at the level where it can fail, the node:
// on every world that the plain depth-first search of the short symmetric
// configurations of forgetConfigs visits, for every node n (crashed or
// not: Forget is a function of the node) and every rotation k, the
// forgotten node of the rotated node encodes as the rotation of the
// forgotten node (gossipfd: n.Rotate(k).Forget() and
// n.Forget().AppendRotated(k); ringfd: Rotated, for daemons and processes).
// Clearing a crashed process's detections is the other half of φ and
// commutes with any renaming of ranks. It fails if no node had anything
// to forget (Forget's encoding equal to the node's).
func TestForgetCommutesWithRotation(t *testing.T) {
	var counts [2]int
	for _, c := range forgetConfigs {
		if c.long || (c.protocol != "gossipfd" && c.protocol != "ringfd") {
			continue
		}
		args := strings.Fields(c.args)
		if _, _, ok := symmetricPair(t, c.protocol, args); !ok {
			continue
		}
		plain, _ := forgetPair(t, c.protocol, args)
		res := checker.DFS[*env.World](commutesChecked(plain, &counts), checker.Options{MaxStates: 30_000})
		if res.Err != nil || !res.Complete || len(res.Violations) > 0 {
			t.Fatalf("%s %s: %v, complete %v, violations %v", c.protocol, c.args, res.Err, res.Complete, res.Violations)
		}
		t.Logf("%s %s: %d worlds", c.protocol, c.args, res.States)
	}
	if counts[1] == 0 {
		t.Fatalf("%d (node, rotation) pairs checked, none with anything to forget", counts[0])
	}
	t.Logf("%d (node, rotation) pairs checked, %d with something forgotten", counts[0], counts[1])
}

// commutesChecked is m with one invariant, forget-commutes-with-rotation:
// for every node n of the world and every rotation k < N (ranks), the
// forgotten node of n rotated by k encodes as the rotation of n's
// forgotten node. counts[0] counts the (node, rotation) pairs checked,
// counts[1] those whose node Forget changes.
func commutesChecked(m *env.Model, counts *[2]int) propsOnly {
	commutes := func(w *env.World) error {
		for r := range core.Rank(w.N()) {
			for k := range w.N() {
				var rotForget, forgetRot, plain, forgot []byte
				switch n := w.Node(r).(type) {
				case *gfd.Node:
					rotForget = n.Rotate(k).Forget().AppendBinary(nil)
					forgetRot = n.Forget().(*gfd.Node).AppendRotated(nil, k)
					plain, forgot = n.AppendBinary(nil), n.Forget().AppendBinary(nil)
				case *rfd.Daemon:
					rotForget = n.Rotated(k).Forget().AppendBinary(nil)
					forgetRot = n.Forget().(*rfd.Daemon).AppendRotated(nil, k)
					plain, forgot = n.AppendBinary(nil), n.Forget().AppendBinary(nil)
				case *rfd.Process:
					rotForget = n.Rotated(k).Forget().AppendBinary(nil)
					forgetRot = n.Forget().(*rfd.Process).AppendRotated(nil, k)
					plain, forgot = n.AppendBinary(nil), n.Forget().AppendBinary(nil)
				default:
					return fmt.Errorf("%v: node %T has no rotation", r, n)
				}
				counts[0]++
				if !bytes.Equal(plain, forgot) {
					counts[1]++
				}
				if !bytes.Equal(rotForget, forgetRot) {
					return fmt.Errorf("%v, rotation %d: Forget of the rotated node %x, rotation of the forgotten node %x", r, k, rotForget, forgetRot)
				}
			}
		}
		return nil
	}
	return propsOnly{m, []checker.Property[*env.World]{{Name: "forget-commutes-with-rotation", Kind: checker.Invariant, Check: commutes}}}
}

// TestForgetSymmetryGuardCatchesNonCommutingForget: a Forget that keeps
// more than the properties read but names a host (the test-only gossipfd
// MutantForgetKeepsHost0 keeps host 0's heartbeat and lastInc entries)
// is sound without symmetry, and envtest.CompareForget passes on it, but
// it breaks the premise (P) of the composition with the rotations:
// commutesChecked fails on it, and envtest.CompareForgetSymmetric reports
// that the classes of the forgetting symmetric search are not the images
// of the plain symmetric search's, while the correct Forget passes all
// three (gossipfd --timing bounded --max-rounds 8 --detect-bound 9,
// forgetConfigs' first gossipfd row).
func TestForgetSymmetryGuardCatchesNonCommutingForget(t *testing.T) {
	want, _ := forgetPair(t, "gossipfd", []string{"--timing", "bounded", "--max-rounds", "8", "--detect-bound", "9"})
	build := func(mut mutant.Name, forget bool) *env.Model {
		cfg := gfd.Config{N: 4, Variant: gfd.BRR, Cleanup: 4, Ping: true, TGossip: 4, PingTimeout: 3, MaxRounds: 8, Mutant: mut}
		m, err := gossipfd.NewEnvModel(gossipfd.EnvParams{Node: cfg, Crashes: 1, Delta: 1, DetectBound: 9, ForgetCrashed: forget})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if got := build(mutant.None, false).Name(); got != want.Name() {
		t.Fatalf("the test's model is %q, not the list's %q", got, want.Name())
	}
	for _, mut := range []mutant.Name{mutant.None, gfd.MutantForgetKeepsHost0} {
		plain, forget := build(mut, false), build(mut, true)
		if _, err := envtest.CompareForget(plain, forget, 100_000, false); err != nil {
			t.Fatalf("Forget %q without symmetry: %v", mut, err)
		}
		var counts [2]int
		res := checker.DFS[*env.World](commutesChecked(plain, &counts), checker.Options{MaxStates: 100_000})
		_, err := envtest.CompareForgetSymmetric(gossipfd.SymmetricEnv{Model: plain}, gossipfd.SymmetricEnv{Model: forget}, 100_000)
		switch {
		case res.Err != nil || !res.Complete && len(res.Violations) == 0:
			t.Fatalf("Forget %q: the commutation search: %v, complete %v", mut, res.Err, res.Complete)
		case mut == mutant.None && (len(res.Violations) > 0 || err != nil):
			t.Fatalf("correct Forget: commutation violations %v, symmetric guard %v", res.Violations, err)
		case mut != mutant.None && len(res.Violations) == 0:
			t.Fatalf("Forget mutant %s: commutes with every rotation on %d worlds", mut, res.States)
		case mut != mutant.None && (err == nil || !strings.Contains(err.Error(), "classes")):
			t.Fatalf("Forget mutant %s: the symmetric guard says %v, want a difference in the classes", mut, err)
		case mut != mutant.None:
			t.Logf("Forget mutant %s: %s; the symmetric guard: %v", mut, res.Violations[0].Violation, err)
		}
	}
}

// propsOnly is an env model with other properties.
type propsOnly struct {
	*env.Model
	props []checker.Property[*env.World]
}

func (m propsOnly) Properties() []checker.Property[*env.World] { return m.props }
