package conformance

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/internal/mutant"
	repmodel "github.com/ftkernel/ftkernel/models/replica"
	"github.com/ftkernel/ftkernel/statemachine/replica"
)

// repCrashProb is the probability that a step of a Go walk is a crash,
// while the budget allows one.
const repCrashProb = 0.1

// repWalk is a random walk of the instance's Go model (models/replica with
// Params.CrashProb set), stepped by env.Model.Sample from seed until no
// action is enabled.
func repWalk(t testing.TB, in RepInstance, mut mutant.Name, seed uint64) (*repmodel.Model, *checker.Trace) {
	p := in.Params(mut)
	p.CrashProb = repCrashProb
	m, err := repmodel.NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	tr, w := sampleWalk(t, m.Model, rand.New(rand.NewPCG(seed, 0x4e9)), seed, 1000)
	if !m.Quiescent(w) {
		t.Fatalf("walk %d of %s did not reach quiescence in %d steps", seed, in.Module, len(tr.Steps))
	}
	return m, tr
}

// repMutantWalk is a walk of Go mutant mut at instance in that the correct
// Go machines do not follow (the first of seeds 0, 1, ...), translated;
// first is the step where the correct machines first differ (or cannot
// take it).
func repMutantWalk(t testing.TB, in RepInstance, mut mutant.Name) (g *RepTrace, seed uint64, first int) {
	good, err := in.Model(mutant.None)
	if err != nil {
		t.Fatal(err)
	}
	for seed = range uint64(200) {
		m, tr := repWalk(t, in, mut, seed)
		if g, err = FromReplicaChecker(in, m, tr); err != nil {
			t.Fatal(err)
		}
		states, _ := checker.Replay(good.Model, tr)
		for k := 1; k <= len(g.Steps); k++ {
			if k >= len(states) {
				return g, seed, k
			}
			if s, err := FromReplicaWorld(states[k], good.Config.Layout); err != nil || !cmp.Equal(s, g.Steps[k-1].State) {
				return g, seed, k
			}
		}
	}
	t.Fatalf("no walk of the mutant %s differs from the correct machines", mut)
	return nil, 0, 0
}

// TestReplicaCheckerTracesInSpec turns random walks of the Go replica
// machines (instances pingpong and midexample, random crashes) into ITF
// files and Quint run tests, and runs them with one `quint test`: every Go
// step must be a spec step reaching the same state. The same module
// replays a walk of the Go mutant no-backup-resend that the correct
// machines do not follow: that test must fail. With -update it rewrites
// the committed copy of the first pingpong walk in tla/traces/go/. Knob:
// GO_REPLICA_WALKS (walks per instance, default 3).
func TestReplicaCheckerTracesInSpec(t *testing.T) {
	quint := quintBin(t)
	walks := envInt("GO_REPLICA_WALKS", 3)
	pp, mx := repInstance(t, "pingpong"), repInstance(t, "midexample")
	dir := t.TempDir()
	if d := os.Getenv("CONFORMANCE_KEEP"); d != "" {
		dir = d
	}
	committed := filepath.Join(tlaDir(t), "traces", "go")
	var runs, names []string
	steps, crashes := 0, 0
	for _, in := range []RepInstance{pp, mx} {
		for i := range walks {
			name := fmt.Sprintf("%s_walk%d", in.Module, i)
			m, tr := repWalk(t, in, mutant.None, uint64(i))
			g, err := FromReplicaChecker(in, m, tr)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			steps += len(g.Steps)
			crashes += len(g.Steps[len(g.Steps)-1].State.Crashed)
			b, err := g.ITF(tr.Model)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "replica_"+name+".itf.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			runs, names = append(runs, g.QuintRun(name+"Test")), append(names, name+"Test")
			if *update && i == 0 && in.Module == pp.Module {
				writeCommitted(t, committed, "replica_"+name, b, tr)
				src := RepQuintModule("replayReplicaWalk", "../../replica", []RepInstance{pp}, runs[0])
				if err := os.WriteFile(filepath.Join(committed, "replayReplicaWalk.qnt"), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	mg, seed, first := repMutantWalk(t, pp, replica.MutantNoBackupResend)
	runs = append(runs, mg.QuintRun("mutantWalkTest"))
	const module = "replayReplicaWalks"
	why, took := quintTestWalks(t, quint, "replica.qnt", dir, module,
		RepQuintModule(module, "./replica", []RepInstance{pp, mx}, runs...), names, []string{"mutantWalkTest"})
	t.Logf("%d Go walks (%d steps, %d crashes; pingpong and midexample) replay in replica.qnt; the walk of Go mutant no-backup-resend (seed %d, %d steps; the correct machines differ from step %d: %s) does not:%s\nquint test %.1fs",
		len(names), steps, crashes, seed, len(mg.Steps), first, mg.Steps[first-1].Text, why, took.Seconds())
}

// TestReplicaCommittedGoTrace checks, without quint, that the committed Go
// walk (tla/traces/go/replica_pingpong_walk0.trace.json) still replays on
// the Go machines, gives the committed ITF states, and that
// replayReplicaWalk.qnt (which ci/quint.sh runs) is current.
func TestReplicaCommittedGoTrace(t *testing.T) {
	dir := filepath.Join(tlaDir(t), "traces", "go")
	in := repInstance(t, "pingpong")
	m, err := in.Model(mutant.None)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := checker.ReadTraceFile(filepath.Join(dir, "replica_pingpong_walk0.trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := FromReplicaChecker(in, m, tr)
	if err != nil {
		t.Fatal(err)
	}
	requireCommittedITF(t, filepath.Join(dir, "replica_pingpong_walk0.itf.json"), len(g.Steps)+1, func(i int) RepState {
		if i == 0 {
			return g.Init
		}
		return g.Steps[i-1].State
	}, fromReplicaSpec)
	requireCurrentModule(t, filepath.Join(dir, "replayReplicaWalk.qnt"),
		RepQuintModule("replayReplicaWalk", "../../replica", []RepInstance{in}, g.QuintRun("pingpong_walk0Test")),
		"traces/go/replayReplicaWalk.qnt is stale: go test ./tla/conformance -run TestReplicaCheckerTracesInSpec -update")
}
