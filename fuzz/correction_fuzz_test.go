package fuzz

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	corrmodel "github.com/ftkernel/ftkernel/models/correction"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/correction"
)

// FTKERNEL_FUZZ_CORRECTION_MUTANT selects the Corrected Tree variant
// FuzzCorrectionSchedule runs: the correct protocol unless it names a
// mutant (correction.Mutants), e.g.
//
//	FTKERNEL_FUZZ_CORRECTION_MUTANT=checked-stop-on-first-message go test -run XXX -fuzz FuzzCorrectionSchedule ./fuzz
//
// Read in the test body, so that go test's result cache takes it into account.
const fuzzCorrectionMutantEnv = "FTKERNEL_FUZZ_CORRECTION_MUTANT"

// correctionMutantFromEnv reads a correction mutant name from the
// environment variable name.
func correctionMutantFromEnv(t tb, name string) mutant.Name {
	t.Helper()
	return knownMutantFromEnv(t, name, "correction", correction.Mutants)
}

// correctionConfig is one small Corrected Tree environment: root 0
// broadcasts, synchronized correction start, failures (of non-root
// processes) only before correction starts.
type correctionConfig struct {
	tree   correction.TreeKind
	corr   correction.CorrectionKind
	p      int
	faults int
	d      int
	mut    mutant.Name
}

// correctionTrees are the trees a schedule header can pick.
var correctionTrees = []correction.TreeKind{correction.BinomialInterleaved, correction.Lame, correction.KaryInterleaved}

// numCorrectionConfigs is the number of distinct fuzz header bytes (mod it):
// tree (3) × correction checked/opportunistic (2) × P = 4, 5 (2) × faults
// 0, 1 (2).
const numCorrectionConfigs = 3 * 2 * 2 * 2

// correctionConfigOf decodes a fuzz header byte. Opportunistic correction
// uses distance d = 2 (with at most one failure any d ≥ 1 suffices).
func correctionConfigOf(header byte, mut mutant.Name) correctionConfig {
	h := int(header) % numCorrectionConfigs
	c := correctionConfig{tree: correctionTrees[h%3], corr: correction.Checked, p: 4 + h/6%2, faults: h / 12 % 2, d: 2, mut: mut}
	if h/3%2 == 1 {
		c.corr = correction.Opportunistic
	}
	return c
}

func (c correctionConfig) String() string {
	return fmt.Sprintf("tree=%v correction=%v P=%d faults=%d d=%d mutant=%q", c.tree, c.corr, c.p, c.faults, c.d, c.mut)
}

var correctionModels sync.Map // correctionConfig → *env.Model

// model returns (building once) the environment of c.
func (c correctionConfig) model() (*env.Model, error) {
	if m, ok := correctionModels.Load(c); ok {
		return m.(*env.Model), nil
	}
	p := corrmodel.Params{P: c.p, Tree: correction.Tree{Kind: c.tree, K: 2, L: 2, O: 1},
		Correction: c.corr, Distance: c.d, Start: correction.Synchronized, Delay: 4, Mutant: c.mut,
		Faults: c.faults, FaultsBeforeCorrection: true, Compact: true}
	if c.mut == correction.MutantKaryHeapOrder {
		p.Tree.Mutant = c.mut
	}
	m, err := corrmodel.NewModel(p)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", c, err)
	}
	m2, _ := correctionModels.LoadOrStore(c, m)
	return m2.(*env.Model), nil
}

// decodeCorrectionSchedule turns fuzz bytes into a run: data[0] picks the
// environment (correctionConfigOf) and every later byte the index, modulo
// their number, of the next action among Model.Actions of the current
// world. The run stops at quiescence or when the bytes run out, so every
// byte string is a valid schedule. The model has one initial state.
func decodeCorrectionSchedule(data []byte, mut mutant.Name) (*env.Model, *checker.Trace, *env.World, error) {
	var header byte
	if len(data) > 0 {
		header = data[0]
	}
	m, err := correctionConfigOf(header, mut).model()
	if err != nil {
		return nil, nil, nil, err
	}
	tr := &checker.Trace{Model: m.Name(), Params: m.Params()}
	s := m.Init()[0]
	s, err = followSchedule(m, s, tr, data[min(1, len(data)):])
	return m, tr, s, err
}

// runCorrectionAndCheck is the body of the fuzz target: decode, then
// checker.Replay every property (checkTrace) of the trace.
func runCorrectionAndCheck(t tb, data []byte, mut mutant.Name) {
	t.Helper()
	m, tr, _, err := decodeCorrectionSchedule(data, mut)
	if err != nil {
		t.Fatalf("%v\n%s", err, tr)
	}
	if report, ok := checkTrace(m, tr); !ok {
		t.Fatalf("correction property violated by schedule %x (%v):\n%s", data, correctionConfigOf(data[0], mut), report)
	}
}

// FuzzCorrectionSchedule lets the fuzzer choose the environment and the
// schedule of a small Corrected Tree broadcast (P = 4 or 5, at most one
// failure, before correction): see decodeCorrectionSchedule for the byte
// layout. Every property is checked along the run.
func FuzzCorrectionSchedule(f *testing.F) {
	f.Add([]byte{})
	f.Add(make([]byte, 40))
	mut := correctionMutantFromEnv(f, fuzzCorrectionMutantEnv)
	f.Fuzz(func(t *testing.T, data []byte) {
		runCorrectionAndCheck(t, data, mut)
	})
}

// TestCorrectionFuzzConfigsExhaustive checks, with FTKERNEL_CORRECTION_BFS=1,
// that every environment a fuzz header can pick satisfies all properties on
// the correct protocol (BFS with partial-order reduction, up to 200k states
// each), so a fuzz failure is a real finding, not a too-weak configuration.
// It takes minutes, so it is skipped by default.
func TestCorrectionFuzzConfigsExhaustive(t *testing.T) {
	if os.Getenv("FTKERNEL_CORRECTION_BFS") == "" {
		t.Skip("set FTKERNEL_CORRECTION_BFS=1 to explore every fuzz environment")
	}
	for h := 0; h < numCorrectionConfigs; h++ {
		c := correctionConfigOf(byte(h), mutant.None)
		m, err := c.model()
		if err != nil {
			t.Fatal(err)
		}
		res := checker.BFS[*env.World](m, checker.Options{POR: true, MaxStates: 200_000})
		if res.Err != nil || len(res.Violations) > 0 {
			t.Fatalf("%v: err %v complete %v violations %v", c, res.Err, res.Complete, res.Violations)
		}
		t.Logf("%v: %d states, complete %v", c, res.States, res.Complete)
	}
}

// TestWriteCorrectionSeedCorpus regenerates
// testdata/fuzz/FuzzCorrectionSchedule when FTKERNEL_WRITE_CORPUS=1 (it is
// skipped otherwise): seeded random walks of the correct protocol, one per
// environment with a failure budget (12 of them) minus two, each kept only
// if it reaches quiescence with a crash.
func TestWriteCorrectionSeedCorpus(t *testing.T) {
	if os.Getenv("FTKERNEL_WRITE_CORPUS") == "" {
		t.Skip("set FTKERNEL_WRITE_CORPUS=1 to regenerate testdata/fuzz/FuzzCorrectionSchedule")
	}
	r := rand.New(rand.NewPCG(7, 1))
	dir := filepath.Join("testdata", "fuzz", "FuzzCorrectionSchedule")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	kept := 0
	for h := numCorrectionConfigs / 2; h < numCorrectionConfigs && kept < 10; h++ {
		for try := 0; try < 1000; try++ {
			data := []byte{byte(h)}
			m, err := correctionConfigOf(byte(h), mutant.None).model()
			if err != nil {
				t.Fatal(err)
			}
			s := m.Init()[0]
			for !m.Quiescent(s) && len(data) < maxScheduleSteps {
				acts := m.Actions(s, nil)
				i := r.IntN(len(acts))
				if len(acts) > 256 {
					t.Fatalf("%d actions enabled: a byte cannot name them all", len(acts))
				}
				data = append(data, byte(i))
				if s, err = m.Apply(s, acts[i]); err != nil {
					t.Fatal(err)
				}
			}
			if !m.Quiescent(s) || s.NumCrashed() == 0 {
				continue
			}
			runCorrectionAndCheck(t, data, mutant.None)
			name := fmt.Sprintf("seed-%x", sha256.Sum256(data))[:21]
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %v, %d steps, crashed %v", name, correctionConfigOf(byte(h), mutant.None), len(data)-1, s.CrashedSet())
			kept++
			break
		}
	}
	if kept < 10 {
		t.Fatalf("only %d seeds", kept)
	}
}

// TestCorrectionSeedCorpus checks the committed seeds still reach
// quiescence with a crash (the fuzz target itself checks the properties).
func TestCorrectionSeedCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzCorrectionSchedule", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no seed under testdata/fuzz/FuzzCorrectionSchedule")
	}
	for _, f := range files {
		data, err := readCorpusFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, _, s, err := decodeCorrectionSchedule(data, mutant.None)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Quiescent(s) || s.NumCrashed() == 0 {
			t.Errorf("%s: quiescent %v, crashed %v: want a quiescent run with a crash", f, m.Quiescent(s), s.CrashedSet())
		}
	}
}
