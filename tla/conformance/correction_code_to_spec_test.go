package conformance

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/correction"
)

// corrCrashProb is the probability that a step of a Go walk is a crash,
// while one is enabled (before the synchronized start, within the budget).
const corrCrashProb = 0.15

// corrWalk is a random walk of the instance's Go environment: the model of
// corrmodel.NewModel with env.Config.CrashProb set (the registry
// leaves it 0: no random crashes), stepped by env.Model.Sample from seed
// until quiescence.
func corrWalk(t testing.TB, in CorrInstance, mut mutant.Name, seed uint64) (*env.Model, *checker.Trace) {
	m0, err := in.Model(mut)
	if err != nil {
		t.Fatal(err)
	}
	cfg := m0.Config()
	cfg.CrashProb = corrCrashProb
	m, err := env.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr, w := sampleWalk(t, m, rand.New(rand.NewPCG(seed, 0xc0cc)), seed, 1000)
	if !m.Quiescent(w) {
		t.Fatalf("walk %d of %s did not reach quiescence in %d steps", seed, in.Module, len(tr.Steps))
	}
	return m, tr
}

// mutantWalk is a walk of the Go mutant checked-stop-on-first-message at
// instance in that the correct Go machines do not follow (the first of
// seeds 0, 1, ...), translated; first is the step where the correct
// machines first differ (or cannot take it).
func mutantWalk(t testing.TB, in CorrInstance) (g *CorrTrace, seed uint64, first int) {
	good, err := in.Model(mutant.None)
	if err != nil {
		t.Fatal(err)
	}
	for seed = range uint64(50) {
		m, tr := corrWalk(t, in, correction.MutantCheckedStopEarly, seed)
		if g, err = FromCorrectionChecker(in, m, tr); err != nil {
			t.Fatal(err)
		}
		states, _ := checker.Replay(good, tr)
		for k := 1; k <= len(g.Steps); k++ {
			if k >= len(states) {
				return g, seed, k // not enabled on the correct machines
			}
			if s, err := FromCorrectionWorld(states[k]); err != nil || !cmp.Equal(s, g.Steps[k-1].State) {
				return g, seed, k
			}
		}
	}
	t.Fatal("no walk of the mutant differs from the correct machines")
	return nil, 0, 0
}

// TestCorrectionCheckerTracesInSpec turns random walks of the Go Corrected
// Tree machines (checked correction, synchronized start, crashes before
// the start) into ITF files and Quint run tests, and runs them with one
// `quint test`: every Go step must be a spec step reaching the same state.
// The same module replays a walk of the Go mutant
// checked-stop-on-first-message that the correct machines do not follow:
// that test must fail (the replay has teeth). With -update it rewrites the
// committed copy of the first walk in tla/traces/go/. Knob: GO_WALKS
// (walks of correction4; half as many of correction6inorder; default 6).
func TestCorrectionCheckerTracesInSpec(t *testing.T) {
	quint := quintBin(t)
	walks := envInt("GO_WALKS", 6)
	c4, c6 := corrInstance(t, "correction4"), corrInstance(t, "correction6inorder")
	dir := t.TempDir()
	if d := os.Getenv("CONFORMANCE_KEEP"); d != "" {
		dir = d
	}
	committed := filepath.Join(tlaDir(t), "traces", "go")
	var runs, names []string
	steps, crashes := 0, 0
	for _, gr := range []struct {
		in    CorrInstance
		walks int
	}{{c4, walks}, {c6, max(1, walks/2)}} {
		for i := range gr.walks {
			name := fmt.Sprintf("%s_walk%d", gr.in.Module, i)
			m, tr := corrWalk(t, gr.in, mutant.None, uint64(i))
			g, err := FromCorrectionChecker(gr.in, m, tr)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			steps += len(g.Steps)
			crashes += len(g.Steps[len(g.Steps)-1].State.Crashed)
			b, err := g.ITF(tr.Model)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name+".itf.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			runs, names = append(runs, g.QuintRun(name+"Test")), append(names, name+"Test")
			if *update && i == 0 && gr.in == c4 {
				writeCommitted(t, committed, name, b, tr)
				src := CorrQuintModule("replayCorrectionWalk", "../../correction", []CorrInstance{c4}, runs[0])
				if err := os.WriteFile(filepath.Join(committed, "replayCorrectionWalk.qnt"), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	mg, seed, first := mutantWalk(t, c4)
	runs = append(runs, mg.QuintRun("mutantWalkTest"))
	const module = "replayCorrectionWalks"
	why, took := quintTestWalks(t, quint, "correction.qnt", dir, module,
		CorrQuintModule(module, "./correction", []CorrInstance{c4, c6}, runs...), names, []string{"mutantWalkTest"})
	t.Logf("%d Go walks (%d steps, %d crashes; correction4 and correction6inorder) replay in correction.qnt; the mutant's walk (seed %d, %d steps; the correct machines differ from step %d: %s) does not:%s\nquint test %.1fs",
		len(names), steps, crashes, seed, len(mg.Steps), first, mg.Steps[first-1].Text, why, took.Seconds())
}

// TestCorrectionCommittedGoTrace checks that the committed Go walk
// (tla/traces/go/correction4_walk0.trace.json) still replays on the Go
// machines and gives the committed ITF states (as ci/quint.sh replays
// that walk in the spec, with replayCorrectionWalk.qnt); it needs no quint.
func TestCorrectionCommittedGoTrace(t *testing.T) {
	dir := filepath.Join(tlaDir(t), "traces", "go")
	in := corrInstance(t, "correction4")
	m, err := in.Model(mutant.None)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := checker.ReadTraceFile(filepath.Join(dir, "correction4_walk0.trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := FromCorrectionChecker(in, m, tr)
	if err != nil {
		t.Fatal(err)
	}
	requireCommittedITF(t, filepath.Join(dir, "correction4_walk0.itf.json"), len(g.Steps)+1, func(i int) CorrState {
		if i == 0 {
			return g.Init
		}
		return g.Steps[i-1].State
	}, fromCorrectionSpec)
	requireCurrentModule(t, filepath.Join(dir, "replayCorrectionWalk.qnt"),
		CorrQuintModule("replayCorrectionWalk", "../../correction", []CorrInstance{in}, g.QuintRun("correction4_walk0Test")),
		"traces/go/replayCorrectionWalk.qnt is stale: go test ./tla/conformance -run TestCorrectionCheckerTracesInSpec -update")
}
