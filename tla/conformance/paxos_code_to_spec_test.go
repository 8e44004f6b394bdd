package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/paxos"
)

// pxWalkSteps bounds the Go walks replayed in the spec.
const pxWalkSteps = 40

func pxWalk(t testing.TB, in PxInstance, mut mutant.Name, seed uint64) *PxWalk {
	t.Helper()
	g, err := RandomPxWalk(in, mut, seed, pxWalkSteps)
	if err != nil {
		t.Fatalf("%s walk %d (%s): %v", in.Module, seed, mut, err)
	}
	return g
}

// pxMutantWalk is a walk of Go mutant mut that the correct Go nodes do not
// follow (the first of seeds 0, 1, ...): first is the step where the
// correct nodes first differ (or cannot take it), why the difference.
func pxMutantWalk(t testing.TB, in PxInstance, mut mutant.Name) (g *PxWalk, seed uint64, first int, why string) {
	t.Helper()
	for seed = range uint64(500) {
		g = pxWalk(t, in, mut, seed)
		w, err := NewPxWorld(in, mutant.None)
		if err != nil {
			t.Fatal(err)
		}
		for k, a := range g.Actions {
			if err := w.Apply(a); err != nil {
				return g, seed, k + 1, err.Error()
			}
			if d := cmp.Diff(g.States[k], w.State()); d != "" {
				return g, seed, k + 1, d
			}
		}
	}
	t.Fatalf("no walk of the Go mutant %s differs from the correct nodes", mut)
	return nil, 0, 0, ""
}

// TestPaxosGoWalksInSpec turns random walks of the Go paxos nodes
// (PxWorld: instances paxos3 and paxos3x2, with crashes, restarts, losses,
// duplications, Leads and false suspicions; fig21, whose proposers are not
// learners) into ITF files (paxos.qnt's
// image per state) and Quint run tests (replayGo), and runs them with
// `quint test`: every Go step must be a spec step reaching the same image.
// The same modules replay a walk of each Go mutant accept-lower-ballot and
// ignore-promised-value that the correct nodes do not follow: those tests
// must fail. With -update it rewrites tla/traces/go/replayPaxosWalk.qnt
// (the first paxos3 walk), which ci/quint.sh runs. Knob: GO_PAXOS_WALKS
// (walks per instance, default 2).
func TestPaxosGoWalksInSpec(t *testing.T) {
	quint := quintBin(t)
	walks := envInt("GO_PAXOS_WALKS", 2)
	dir := t.TempDir()
	if d := os.Getenv("CONFORMANCE_KEEP"); d != "" {
		dir = d
	}
	for _, module := range []string{"paxos3", "paxos3x2", "fig21"} {
		in, err := pxInstance(module)
		if err != nil {
			t.Fatal(err)
		}
		var runs, names []string
		steps, decided := 0, 0
		for i := range walks {
			name := fmt.Sprintf("%s_walk%d", module, i)
			g := pxWalk(t, in, mutant.None, uint64(i))
			steps += len(g.Actions)
			for _, n := range g.States[len(g.States)-1].Nodes {
				decided += len(n.Decisions)
			}
			b, err := g.ITF("tla/conformance RandomPxWalk")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "paxos_"+name+".itf.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			runs, names = append(runs, g.QuintRun(name+"Test")), append(names, name+"Test")
			if *update && i == 0 && module == "paxos3" {
				src := PxQuintModule("replayPaxosWalk", "../../paxos", in, runs[0])
				if err := os.WriteFile(filepath.Join(tlaDir(t), "traces", "go", "replayPaxosWalk.qnt"), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		var failed, notes []string
		if module == "paxos3" {
			for _, mut := range []mutant.Name{paxos.MutantAcceptLowerBallot, paxos.MutantIgnorePromisedValue} {
				mg, seed, first, why := pxMutantWalk(t, in, mut)
				name := strings.ReplaceAll(string(mut), "-", "_") + "Test"
				runs, failed = append(runs, mg.QuintRun(name)), append(failed, name)
				notes = append(notes, fmt.Sprintf("Go mutant %s: walk %d (%d steps), the correct nodes differ at step %d (%v):\n%s",
					mut, seed, len(mg.Actions), first, mg.Actions[first-1], why))
			}
		}
		mod := "replayPaxosWalks_" + module
		why, took := quintTestWalks(t, quint, "paxos.qnt", dir, mod, PxQuintModule(mod, "./paxos", in, runs...), names, failed)
		t.Logf("%s: %d Go walks (%d steps, %d decisions) replay in paxos.qnt; %d mutant walks do not:%s\nquint test %.1fs\n%s",
			module, len(names), steps, decided, len(failed), why, took.Seconds(), strings.Join(notes, "\n"))
	}
}

// TestPaxosCommittedGoWalk checks, without quint, that
// tla/traces/go/replayPaxosWalk.qnt (which ci/quint.sh runs) is the
// current translation of the first paxos3 walk.
func TestPaxosCommittedGoWalk(t *testing.T) {
	in, err := pxInstance("paxos3")
	if err != nil {
		t.Fatal(err)
	}
	g := pxWalk(t, in, mutant.None, 0)
	requireCurrentModule(t, filepath.Join(tlaDir(t), "traces", "go", "replayPaxosWalk.qnt"),
		PxQuintModule("replayPaxosWalk", "../../paxos", in, g.QuintRun("paxos3_walk0Test")),
		"traces/go/replayPaxosWalk.qnt is stale: go test ./tla/conformance -run TestPaxosGoWalksInSpec -update")
}
