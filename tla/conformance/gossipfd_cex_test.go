package conformance

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/internal/mutant"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// Quint traces that must meet the Go machines in a given way, committed
// under tla/traces/ so that `go test` replays them without quint; quint
// regenerates and rechecks them with FTKERNEL_LONG=1 (and -update rewrites
// the committed copies).

// gCex is an expected violation quint finds in an instance of gossipfd.qnt
// (as ci/quint.sh does): its counterexample must replay on the Go machines,
// end in a Go state that violates goProp, and diverge on the Go mutant
// mustCatch.
type gCex struct {
	module, invariant, goProp string
	seed                      string // quint's seed ("" is quintSeed())
	samples                   int
	mustCatch                 mutant.Name
}

var gCexes = []gCex{
	// the ping answered by p2 and p3 is what keeps accuracy here
	{"rand4s1", "NoFalseSuspicion", "no-false-suspicion", "", 300, fd.MutantPingNeverAnswers},
	// ci/quint.sh's pinned seed
	{"brr5x2oop", "Completeness", "completeness", "0x85f8", 1, fd.MutantBRROffset2r},
}

func (c gCex) committed(t testing.TB) string {
	return filepath.Join(tlaDir(t), "traces", "gossipfdcex_"+c.module+"_"+c.invariant+".itf.json")
}

// gSpecMutant is a spec-only mutant of gossipfd_mutants.qnt and the
// instance it breaks: its traces must diverge from that instance's Go
// machines (so the replays see OFFSETS and PLAN).
type gSpecMutant struct{ module, base string }

var gSpecMutants = []gSpecMutant{
	{"brr4oopPhaseIgnored", "brr4oop"},
	{"rand4s3PlanShifted", "rand4s3"},
}

func (m gSpecMutant) committed(t testing.TB) string {
	return filepath.Join(tlaDir(t), "traces", "gossipfdmut_"+m.module+".itf.json")
}

// checkGossipCex replays the counterexample file of c on the Go machines.
func checkGossipCex(t *testing.T, c gCex, file string) {
	t.Helper()
	in := gInst(t, c.module)
	st, err := ReplayGossipITF(file, in, mutant.None)
	if err != nil {
		t.Fatal(err)
	}
	// the Go state at the end of the trace, checked by the Go property
	m, err := in.Model(mutant.None)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := readITF(file)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Init()[0]
	for i := 1; i < len(tr.States); i++ {
		name, _ := tr.States[i]["mbt::actionTaken"].(string)
		p := -1
		if v, ok := pick(tr.States[i], "p"); ok && name == "Crash" {
			p = asInt(v)
		}
		a, ok := gAction(m, s, name, p)
		if !ok {
			t.Fatalf("%s: state %d: %s(%d) not enabled in Go", c.module, i, name, p)
		}
		if s, err = m.Apply(s, a); err != nil {
			t.Fatal(err)
		}
	}
	var goErr error
	for _, p := range m.Properties() {
		if p.Name == c.goProp {
			goErr = p.Check(s)
		}
	}
	if goErr == nil {
		t.Fatalf("%s: the Go state at the end of quint's %s counterexample satisfies %s", c.module, c.invariant, c.goProp)
	}
	t.Logf("%s: quint's %s counterexample (%d spec steps = %d Go steps, %d states compared) conforms; Go: %v",
		c.module, c.invariant, st.SpecSteps, st.GoSteps, st.Compared, goErr)
	if _, err := ReplayGossipITF(file, in, c.mustCatch); err == nil {
		t.Errorf("%s: the Go mutant %s follows quint's counterexample", c.module, c.mustCatch)
	} else {
		t.Logf("  the Go mutant %s diverges: %v", c.mustCatch, firstLine(err))
	}
}

// checkGossipSpecMutant replays a trace of the spec mutant m on the
// correct Go machines of m.base: it must diverge.
func checkGossipSpecMutant(t *testing.T, m gSpecMutant, file string) {
	t.Helper()
	_, err := ReplayGossipITF(file, gInst(t, m.base), mutant.None)
	var d *Divergence
	if !errors.As(err, &d) {
		t.Fatalf("%s: the trace of the spec mutant %s replays on the Go machines of %s (err %v)", filepath.Base(file), m.module, m.base, err)
	}
	t.Logf("%s on %s: diverges at state %d after %s", filepath.Base(file), m.base, d.Step, d.Action)
}

// TestGossipfdSpecViolationsConform replays the committed counterexamples
// quint finds for rand4s1 (NoFalseSuspicion) and brr5x2oop (Completeness)
// on the Go machines; random sampling rarely crashes the one host that
// matters (rand4s1: p0), so these are the spec → code evidence for the
// false suspicion and the late declaration. No quint needed.
func TestGossipfdSpecViolationsConform(t *testing.T) {
	for _, c := range gCexes {
		checkGossipCex(t, c, c.committed(t))
	}
}

// TestGossipfdSpecMutantsDiverge replays the committed traces of the
// spec-only mutants (the out-of-phase offsets ignored, the Random plan read
// one round late) on the correct Go machines of the instance each breaks:
// each must diverge. No quint needed.
func TestGossipfdSpecMutantsDiverge(t *testing.T) {
	for _, m := range gSpecMutants {
		checkGossipSpecMutant(t, m, m.committed(t))
	}
}

// TestGossipfdQuintCexAndMutants regenerates both kinds of traces with
// quint and checks them as above: quint must find each violation, and
// every trace of each spec mutant (4 samples) must diverge. It runs with
// FTKERNEL_LONG=1 or -update (which rewrites the committed copies).
func TestGossipfdQuintCexAndMutants(t *testing.T) {
	if !*update && os.Getenv("FTKERNEL_LONG") != "1" {
		t.Skip("quint regeneration of the committed gossipfdcex_/gossipfdmut_ traces: FTKERNEL_LONG=1 or -update")
	}
	quint := quintBin(t)
	keep := func(src, dst string) {
		if !*update {
			return
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range gCexes {
		seed := c.seed
		if seed == "" {
			seed = quintSeed()
		}
		file := filepath.Join(t.TempDir(), c.module+".itf.json")
		out, err := exec.Command(quint, "run", filepath.Join(tlaDir(t), "gossipfd.qnt"), "--main", c.module,
			"--backend", "typescript", "--invariant", c.invariant, "--max-samples", strconv.Itoa(c.samples),
			"--max-steps", "60", "--seed", seed, "--mbt", "--verbosity", "1", "--out-itf", file).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "[violation]") {
			t.Fatalf("%s: quint finds no violation of %s (err %v):\n%s", c.module, c.invariant, err, out)
		}
		checkGossipCex(t, c, file)
		keep(file, c.committed(t))
	}
	q := quintRun{spec: "gossipfd_mutants.qnt", maxSteps: 60}
	for _, m := range gSpecMutants {
		files, _ := q.traces(t, quint, t.TempDir(), m.module, 4, quintSeed())
		for _, file := range files {
			checkGossipSpecMutant(t, m, file)
		}
		keep(files[0], m.committed(t))
	}
}
