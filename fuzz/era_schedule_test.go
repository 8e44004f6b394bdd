package fuzz

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	eramodel "github.com/ftkernel/ftkernel/models/era"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/era"
)

// mutantFromEnv reads an ERA mutant name from the environment variable name.
func mutantFromEnv(t tb, name string) mutant.Name {
	t.Helper()
	return knownMutantFromEnv(t, name, "ERA", era.Mutants)
}

// knownMutantFromEnv reads a mutant name of protocol what from the
// environment variable name: empty is the correct protocol; a name not in
// known fails the test, so a typo cannot silently test the correct protocol.
func knownMutantFromEnv(t tb, name, what string, known []mutant.Name) mutant.Name {
	t.Helper()
	v := mutant.Name(strings.TrimSpace(os.Getenv(name)))
	if v != mutant.None && !slices.Contains(known, v) {
		t.Fatalf("%s=%q: unknown %s mutant (one of %v)", name, v, what, known)
	}
	if v != mutant.None {
		t.Logf("running %s mutant %s (%s)", what, v, name)
	}
	return v
}

// scheduleConfig is one ERA environment a schedule can run in: N = 4,
// crash budget 2, one agreement, both flag values (all 16 input vectors),
// with the topology, network and lose-on-crash chosen by a header byte.
type scheduleConfig struct {
	topology era.Topology
	network  env.Network
	lose     env.Loss
	mut      mutant.Name
}

const (
	scheduleN       = 4
	scheduleCrashes = 2
	// numConfigs is the number of distinct header bytes (mod numConfigs).
	numConfigs = 3 * 2 * 2
)

func configOf(header byte, mut mutant.Name) scheduleConfig {
	h := int(header) % numConfigs
	return scheduleConfig{topology: era.Topology(h % 3), network: env.Network(h / 3 % 2), lose: env.Loss(h / 6 % 2), mut: mut}
}

var models sync.Map // scheduleConfig → *env.Model

// model returns (building once) the environment of c.
func (c scheduleConfig) model() (*env.Model, error) {
	if m, ok := models.Load(c); ok {
		return m.(*env.Model), nil
	}
	p := eramodel.Params{N: scheduleN, Crashes: scheduleCrashes, Agreements: 1, Values: 2,
		Topology: c.topology, Network: c.network, Loss: c.lose, Op: era.And, Mutant: c.mut}
	m, err := eramodel.NewModel(p, eramodel.AllInputVectors(p))
	if err != nil {
		return nil, err
	}
	m2, _ := models.LoadOrStore(c, m)
	return m2.(*env.Model), nil
}

// maxScheduleSteps bounds a schedule (a correct N=4 run quiesces in far
// fewer steps; the bound only keeps huge inputs cheap).
const maxScheduleSteps = 512

// decodeSchedule turns fuzz bytes into a run: data[0] picks the
// environment, data[1] the initial state (input vector) modulo 16, and every
// later byte the index, modulo their number, of the next action among
// Model.Actions of the current state. The run stops when the state is
// quiescent or the bytes run out, so every byte string is a valid schedule.
// It returns the model and the trace (descriptions filled in).
func decodeSchedule(data []byte, mut mutant.Name) (*env.Model, *checker.Trace, error) {
	var header, init byte
	if len(data) > 0 {
		header = data[0]
	}
	if len(data) > 1 {
		init = data[1]
	}
	m, err := configOf(header, mut).model()
	if err != nil {
		return nil, nil, err
	}
	inits := m.Init()
	tr := &checker.Trace{Model: m.Name(), Params: m.Params(), Init: int(init) % len(inits)}
	s := inits[tr.Init]
	_, err = followSchedule(m, s, tr, data[min(2, len(data)):])
	return m, tr, err
}

// checkTrace replays tr with checker.Replay, which checks every property
// not marked ExpectFail: invariants on each state, transition properties on
// each step, quiescence properties where the state is quiescent. On a
// violation it returns a readable report: the shrunk trace and the full one.
func checkTrace(m *env.Model, tr *checker.Trace) (string, bool) {
	_, err := checker.Replay[*env.World](m, tr)
	if err == nil {
		return "", true
	}
	var verr *checker.ViolationError
	if !errors.As(err, &verr) {
		return fmt.Sprintf("replay failed (model bug): %v\n%s", err, tr), false
	}
	bad := *tr
	bad.Steps = tr.Steps[:verr.Violation.Steps]
	v := verr.Violation
	bad.Violation = &v
	small := checker.Shrink[*env.World](m, &bad)
	return fmt.Sprintf("%s\n\nshrunk to %d steps (from %d):\n%s\nfull trace:\n%s",
		v.String(), len(small.Steps), len(bad.Steps), small, &bad), false
}

// runAndCheck is the body shared by the fuzz target and its seed tests.
func runAndCheck(t tb, data []byte, mut mutant.Name) {
	t.Helper()
	m, tr, err := decodeSchedule(data, mut)
	if err != nil {
		t.Fatalf("%v\n%s", err, tr)
	}
	if report, ok := checkTrace(m, tr); !ok {
		t.Fatalf("ERA property violated by schedule %x:\n%s", data, report)
	}
}

// readCorpusFile reads a one-value []byte corpus file in Go's format
// ("go test fuzz v1" then a []byte("…") line).
func readCorpusFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" ||
		!strings.HasPrefix(lines[1], "[]byte(") || !strings.HasSuffix(lines[1], ")") {
		return nil, fmt.Errorf("%s: not a one-[]byte corpus file", path)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return []byte(s), nil
}
