package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/internal/mutant"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// quintAbcast is `quint run abcast.qnt --mbt` for the spec-to-code test:
// runs of at most 40 steps, which reach quiescence (every message
// delivered) at three members with two messages each.
var quintAbcast = quintRun{spec: "abcast.qnt", invariant: "Inv", maxSteps: 40}

// abMutants are the Go mutants of each variant that the traces must tell
// apart from the protocol.
func abMutants(v ab.Variant) []mutant.Name {
	switch v {
	case ab.UB:
		return []mutant.Name{ab.MutantReuseNumber}
	case ab.BB:
		return []mutant.Name{ab.MutantReuseNumber, ab.MutantDeliverOnPayload}
	}
	return []mutant.Name{ab.MutantDeliverBeforeDecision, ab.MutantBatchArrivalOrder}
}

// TestAbcastSpecTracesConform: spec → code. `quint run abcast.qnt --main M
// --invariant Inv --mbt` writes QUINT_ABCAST_TRACES (default 20) traces of
// each instance (ub3, bb3, cons3: three members, two messages each, one
// crash), and each distinct one replays on the Go members
// (ReplayAbcastITF), every state compared. The same traces replayed on
// each Go mutant of the variant must diverge somewhere.
func TestAbcastSpecTracesConform(t *testing.T) {
	quint := quintBin(t)
	k := envInt("QUINT_ABCAST_TRACES", 20)
	for _, in := range abcastInstances {
		t.Run(in.Module, func(t *testing.T) {
			files, gen := quintAbcast.traces(t, quint, t.TempDir(), in.Module, k, quintSeed())
			t0 := time.Now()
			tt := replayTally(t, files, func(file string) (Stats, error) { return ReplayAbcastITF(file, in, mutant.None) })
			t.Logf("%s: %d distinct traces (of %d samples) conform (spec steps %d..%d, total %d = %d Go steps; %d states compared; final crashed-set sizes %v); quint %.1fs, replay %.1fs",
				in.Module, len(files), k, tt.minLen, tt.maxLen, tt.SpecSteps, tt.GoSteps, tt.Compared, tt.crashes, gen.Seconds(), time.Since(t0).Seconds())
			for _, mut := range abMutants(in.Variant) {
				where := firstDivergence(files, func(file string) error {
					_, err := ReplayAbcastITF(file, in, mut)
					return err
				})
				t.Logf("mutant %-24s %s", mut, where)
				if where == "not caught" {
					t.Errorf("no trace tells the Go mutant %s apart", mut)
				}
			}
		})
	}
}

// abMutantWalk is a walk of Go mutant mut that the correct Go members do
// not follow (the first of seeds 0, 1, …), and the step where they part.
func abMutantWalk(t testing.TB, in AbInstance, mut mutant.Name) (acts []AbAction, states []AbState, seed uint64, first int) {
	t.Helper()
	for seed = range uint64(200) {
		acts, states, err := RandomAbWalk(in, mut, seed, abWalkSteps)
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewAbWorld(in, mutant.None)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range acts {
			if err := w.Apply(a); err != nil || cmp.Diff(states[i+1], w.State()) != "" {
				return acts, states, seed, i + 1
			}
		}
	}
	t.Fatalf("no walk of the Go mutant %s differs from the correct members", mut)
	return nil, nil, 0, 0
}

// abWalkSteps bounds the Go walks: enough to reach quiescence.
const abWalkSteps = 40

// TestAbcastGoWalksInSpec: code → spec. GO_ABCAST_WALKS (default 2)
// random walks of the Go members per instance (RandomAbWalk) become Quint
// runs (AbQuintRun) that take the same actions in abcast.qnt and expect
// the Go state after each; `quint test` must pass them. A walk of each Go
// mutant of the variant that the correct members do not follow must fail.
// With -update it rewrites tla/traces/go/replayAbcastWalk.qnt (the first
// walk of each instance), which ci/quint.sh runs.
func TestAbcastGoWalksInSpec(t *testing.T) {
	quint := quintBin(t)
	walks := envInt("GO_ABCAST_WALKS", 2)
	dir := t.TempDir()
	if d := os.Getenv("CONFORMANCE_KEEP"); d != "" {
		dir = d
	}
	for _, in := range abcastInstances {
		var runs, passed, failed, notes []string
		steps, delivered := 0, 0
		for i := range walks {
			acts, states, err := RandomAbWalk(in, mutant.None, uint64(i), abWalkSteps)
			if err != nil {
				t.Fatal(err)
			}
			steps += len(acts)
			for _, d := range states[len(states)-1].Delivered {
				delivered += len(d)
			}
			name := fmt.Sprintf("%s_walk%dTest", in.Module, i)
			runs, passed = append(runs, AbQuintRun(name, acts, states)), append(passed, name)
		}
		for _, mut := range abMutants(in.Variant) {
			acts, states, seed, first := abMutantWalk(t, in, mut)
			name := strings.ReplaceAll(string(mut), "-", "_") + "Test"
			runs, failed = append(runs, AbQuintRun(name, acts, states)), append(failed, name)
			notes = append(notes, fmt.Sprintf("Go mutant %s: walk %d (%d steps), the correct members part at step %d (%v)", mut, seed, len(acts), first, acts[first-1]))
		}
		mod := "replayAbcastWalks_" + in.Module
		why, took := quintTestWalks(t, quint, "abcast.qnt", dir, mod, AbQuintModule(mod, "./abcast", in, runs...), passed, failed)
		t.Logf("%s: %d Go walks (%d steps, %d deliveries) replay in abcast.qnt; %d mutant walks do not:%s\nquint test %.1fs\n%s",
			in.Module, len(passed), steps, delivered, len(failed), why, took.Seconds(), strings.Join(notes, "\n"))
	}
	if *update {
		if err := os.WriteFile(abCommittedWalk(t), []byte(abCommittedModule(t)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func abCommittedWalk(t testing.TB) string {
	return filepath.Join(tlaDir(t), "traces", "go", "replayAbcastWalk.qnt")
}

// abCommittedModule is tla/traces/go/replayAbcastWalk.qnt: the first Go
// walk of each instance, one module per instance.
func abCommittedModule(t testing.TB) string {
	var mods []string
	for _, in := range abcastInstances {
		acts, states, err := RandomAbWalk(in, mutant.None, 0, abWalkSteps)
		if err != nil {
			t.Fatal(err)
		}
		mods = append(mods, AbQuintModule("replayAbcastWalk_"+in.Module, "../../abcast", in, AbQuintRun("walk0Test", acts, states)))
	}
	return strings.Join(mods, "\n")
}

// TestAbcastCommittedGoWalk checks, without quint, that
// tla/traces/go/replayAbcastWalk.qnt (which ci/quint.sh runs) is the
// current translation of the first Go walk of each instance
// (`go test ./tla/conformance -run TestAbcastGoWalksInSpec -update`
// rewrites it).
func TestAbcastCommittedGoWalk(t *testing.T) {
	b, err := os.ReadFile(abCommittedWalk(t))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != abCommittedModule(t) {
		t.Fatalf("%s is not the current Go walk: rerun with -update", abCommittedWalk(t))
	}
}
