package conformance

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	eramodel "github.com/ftkernel/ftkernel/models/era"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/era"
)

var update = flag.Bool("update", false, "rewrite the committed traces in tla/traces/ (go/*.itf.json, *.qnt)")

// uniformCounterexample is the checker's shortest counterexample to
// uniform agreement (`ftcheck check era --n 3 --crashes 2 --property
// uniform-agreement`): ERA is not uniform.
func uniformCounterexample(t testing.TB) (*env.Model, *checker.Trace) {
	p := eramodel.Params{N: 3, Crashes: 2, Agreements: 1, Values: 2,
		Topology: era.Binary, Network: env.Unordered, Op: era.And}
	m, err := eramodel.NewModel(p, eramodel.AllInputVectors(p))
	if err != nil {
		t.Fatal(err)
	}
	res := checker.BFS(m, checker.Options{Properties: []string{eramodel.UniformAgreement}, Workers: 2})
	if res.Err != nil || len(res.Violations) == 0 {
		t.Fatalf("no uniform-agreement counterexample: %v", res.Err)
	}
	return m, res.Violations[0]
}

// walk is a random walk of the ERA environment (env.Model.Sample) from
// random inputs in 0..3, until quiescence.
func walk(t testing.TB, n, f, nags int, seed uint64) (*env.Model, *checker.Trace) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	sched := make([][]core.Input, n)
	for p := range n {
		for a := range nags {
			sched[p] = append(sched[p], era.Contribute{A: uint64(a), V: era.Flag(r.IntN(4))})
		}
	}
	m, err := eramodel.NewModel(eramodel.Params{N: n, Crashes: f, Agreements: nags, Values: 4,
		Topology: era.Binary, Network: env.Unordered, Loss: env.LossOnCrash, Op: era.And, CrashProb: 0.15},
		[][][]core.Input{sched})
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := sampleWalk(t, m, r, seed, 500)
	return m, tr
}

// sampleWalk steps m from its first initial state by env.Model.Sample with
// r, at most maxSteps steps or until none is enabled; it returns the trace
// (recording seed) and the world reached.
func sampleWalk(t testing.TB, m *env.Model, r *rand.Rand, seed uint64, maxSteps int) (*checker.Trace, *env.World) {
	w := m.Init()[0]
	tr := &checker.Trace{Model: m.Name(), Seed: &seed}
	var buf []checker.Action
	for len(tr.Steps) < maxSteps {
		a, ok := m.Sample(w, r, buf)
		if !ok {
			break
		}
		tr.Steps = append(tr.Steps, checker.Step{Action: a, Text: m.Describe(w, a)})
		var err error
		if w, err = m.Apply(w, a); err != nil {
			t.Fatal(err)
		}
	}
	return tr, w
}

// quintTest copies the spec (a file of tla/, e.g. "era_go.qnt") next to
// the generated module and runs `quint test` on it; it returns quint's
// output and whether all tests passed.
func quintTest(t testing.TB, spec, quint, dir, file, module string) (string, bool) {
	src, err := os.ReadFile(filepath.Join(tlaDir(t), spec))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, spec), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(quint, "test", filepath.Join(dir, file), "--main", module,
		"--backend", "typescript", "--seed", "1", "--max-samples", "1", "--verbosity", "2")
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// TestCheckerTracesInSpec turns the uniform-agreement counterexample and
// random walks of the Go machines (N = 4, two crashes, losses; N = 3, two
// agreements) into ITF files and Quint run tests, and runs them with
// `quint test`: every Go step must be a spec step (plus DC) reaching the
// same state. With -update it rewrites the committed copies in
// tla/traces/go/.
func TestCheckerTracesInSpec(t *testing.T) {
	type item struct {
		name string
		m    *env.Model
		tr   *checker.Trace
		nags int
	}
	m, tr := uniformCounterexample(t)
	groups := map[string][]item{"replayUniform": {{"uniformCounterexample", m, tr, 1}}}
	walks := envInt("GO_WALKS", 10)
	for i := range walks {
		m, tr := walk(t, 4, 2, 1, uint64(i))
		groups["replayWalks4"] = append(groups["replayWalks4"], item{fmt.Sprintf("walk4_seed%d", i), m, tr, 1})
	}
	for i := range walks / 4 {
		m, tr := walk(t, 3, 2, 2, uint64(100+i))
		groups["replayWalks3x2"] = append(groups["replayWalks3x2"], item{fmt.Sprintf("walk3x2_seed%d", 100+i), m, tr, 2})
	}
	dir := t.TempDir()
	if d := os.Getenv("CONFORMANCE_KEEP"); d != "" {
		dir = d
	}
	committed := filepath.Join(tlaDir(t), "traces", "go")
	quint := quintBin(t)
	for module, items := range groups {
		var runs []string
		var n, f, nags, steps int
		for _, it := range items {
			g, err := FromChecker(it.m, it.tr, it.nags)
			if err != nil {
				t.Fatalf("%s: %v", it.name, err)
			}
			n, f, nags = g.N, g.F, g.Agreements
			steps += len(g.Steps)
			b, err := g.ITF(it.tr.Model)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, it.name+".itf.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			runs = append(runs, g.QuintRun(it.name+"Test"))
			if *update && (it.name == "uniformCounterexample" || it.name == "walk4_seed0") {
				writeCommitted(t, committed, it.name, b, it.tr)
			}
		}
		src := QuintModule(module, "./era_go", n, f, nags, runs...)
		file := module + ".qnt"
		if err := os.WriteFile(filepath.Join(dir, file), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if *update && module == "replayUniform" {
			src := QuintModule(module, "../../era_go", n, f, nags, runs...)
			if err := os.WriteFile(filepath.Join(committed, file), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t0 := time.Now()
		out, ok := quintTest(t, "era_go.qnt", quint, dir, file, module)
		if !ok || strings.Count(out, "ok ") < len(items) {
			t.Fatalf("%s: Go traces do not replay in the spec (generated %s):\n%s", module, filepath.Join(dir, file), out)
		}
		t.Logf("%s: %d Go traces (%d steps) replay in eraGo (quint test %.1fs)", module, len(items), steps, time.Since(t0).Seconds())
	}
}

// writeCommitted writes a Go trace into the committed directory (created if
// missing): its ITF itf as name.itf.json, the checker trace tr as
// name.trace.json.
func writeCommitted(t testing.TB, committed, name string, itf []byte, tr *checker.Trace) {
	if err := os.MkdirAll(committed, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(committed, name+".itf.json"), itf, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tr.WriteFile(filepath.Join(committed, name+".trace.json")); err != nil {
		t.Fatal(err)
	}
}

// TestQuintReplayDetectsMismatch checks that the generated test fails
// when the Go state it expects is not the spec's: the uniform-agreement
// counterexample with the last decision altered.
func TestQuintReplayDetectsMismatch(t *testing.T) {
	m, tr := uniformCounterexample(t)
	g, err := FromChecker(m, tr, 1)
	if err != nil {
		t.Fatal(err)
	}
	last := &g.Steps[len(g.Steps)-1].State
	pr := last.Procs[0]
	ags := map[int]Agreement{}
	for a, x := range pr.Ags {
		x.Result = 2 - x.Result%2 // a value no input combination of 0/1 gives
		ags[a] = x
	}
	pr.Ags = ags
	last.Procs = append([]Proc{pr}, last.Procs[1:]...)
	dir := t.TempDir()
	quint := quintBin(t)
	src := QuintModule("replayBroken", "./era_go", g.N, g.F, 1, g.QuintRun("brokenTest"))
	if err := os.WriteFile(filepath.Join(dir, "replayBroken.qnt"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, ok := quintTest(t, "era_go.qnt", quint, dir, "replayBroken.qnt", "replayBroken"); ok {
		t.Fatalf("quint test passed on a wrong expected state:\n%s", out)
	}
}
