package conformance

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/internal/mutant"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// gInst looks up an instance module of gossipfd.qnt or fails the test.
func gInst(t testing.TB, module string) GInstance {
	in, ok := gInstance(module)
	if !ok {
		t.Fatalf("no gossipfd instance %s", module)
	}
	return in
}

// gMustCatch are the Go mutants the traces of an instance must tell apart
// from the protocol: the routing mutant of its variant (every trace runs
// rounds), and with crashes cleanup-ge (a crashed host is suspected a
// round early); ping-never-answers where a live host is suspected with the
// ping phase (brr4x2: the paper's example).
func gMustCatch(in GInstance) []mutant.Name {
	var out []mutant.Name
	switch in.Variant {
	case fd.BRR:
		out = append(out, fd.MutantBRROffset2r)
	case fd.DBRR:
		out = append(out, fd.MutantDBRRSameDirection)
	}
	if in.F > 0 {
		out = append(out, fd.MutantCleanupGE)
	}
	if in.Module == "brr4x2" {
		out = append(out, fd.MutantPingNeverAnswers)
	}
	return out
}

// gCommitted splits a committed trace name "gossipfd_MODULE_seedS.itf.json".
func gCommitted(t testing.TB, file string) GInstance {
	base := strings.TrimPrefix(filepath.Base(file), "gossipfd_")
	module, _, ok := strings.Cut(base, "_seed")
	if !ok {
		t.Fatalf("%s: want gossipfd_MODULE_seedS.itf.json", file)
	}
	return gInst(t, module)
}

// TestGossipfdSpecTracesConformCommitted replays the committed gossipfd
// traces (tla/traces/gossipfd_*.itf.json) on the Go round model; it needs
// no quint. Each must diverge on the routing mutant of its variant.
func TestGossipfdSpecTracesConformCommitted(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(tlaDir(t), "traces", "gossipfd_*.itf.json"))
	if len(files) == 0 {
		t.Fatal("no committed tla/traces/gossipfd_*.itf.json")
	}
	for _, file := range files {
		in := gCommitted(t, file)
		st, err := ReplayGossipITF(file, in, mutant.None)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d spec steps = %d Go steps, %d states compared", filepath.Base(file), st.SpecSteps, st.GoSteps, st.Compared)
		mut := gMustCatch(in)[0]
		if _, err := ReplayGossipITF(file, in, mut); err == nil {
			t.Errorf("%s: the Go mutant %s follows the committed trace", filepath.Base(file), mut)
		} else {
			t.Logf("  the Go mutant %s diverges: %v", mut, firstLine(err))
		}
	}
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// quintGossip runs gossipfd.qnt with no invariant (every behaviour);
// every trace ends at the horizon, so each is written twice: see
// quintRun.traces.
var quintGossip = quintRun{spec: "gossipfd.qnt", maxSteps: 60, exactN: true}

// gCommittedSpecTraces are the instances with a committed spec trace:
// BRR's example, DBRR, a Random plan, an out-of-phase start.
var gCommittedSpecTraces = []string{"brr4x2", "dbrr4x2", "rand4s3", "dbrr4x2oop"}

// TestGossipfdSpecTracesConform generates ITF traces of every instance of
// gossipfd.qnt with quint into a temporary directory and replays each on
// the Go machines in the round model, comparing every state. The same
// traces are replayed on every Go mutant (fd.Mutants) and must diverge on
// those of gMustCatch. With -update it rewrites the committed traces
// tla/traces/gossipfd_M_seedS.itf.json of the instances M of
// gCommittedSpecTraces (the first distinct trace of each, S the quint
// seed). Knobs: QUINT_CONFORMANCE_TRACES
// (quint samples per instance, default 20), QUINT_SEED.
func TestGossipfdSpecTracesConform(t *testing.T) {
	quint := quintBin(t)
	k := envInt("QUINT_CONFORMANCE_TRACES", 20)
	seed := quintSeed()
	for _, in := range GInstances {
		t.Run(in.Module, func(t *testing.T) {
			files, gen := quintGossip.traces(t, quint, t.TempDir(), in.Module, k, seed)
			t0 := time.Now()
			var tot Stats
			crashes := map[int]int{}
			falseSusp := 0
			for _, file := range files {
				st, err := ReplayGossipITF(file, in, mutant.None)
				if err != nil {
					t.Fatal(err)
				}
				tot.SpecSteps += st.SpecSteps
				tot.GoSteps += st.GoSteps
				tot.Compared += st.Compared
				tr, err := readITF(file)
				if err != nil {
					t.Fatal(err)
				}
				last, err := fromGossipSpec(tr.States[len(tr.States)-1])
				if err != nil {
					t.Fatal(err)
				}
				c := 0
				for _, r := range last.Crashed {
					if r > 0 {
						c++
					}
				}
				crashes[c]++
				if last.FalseSusp != nil {
					falseSusp++
				}
			}
			want := k / 4
			if in.F == 0 {
				want = 1 // without crashes the round model is deterministic: one trace
			}
			if len(files) < want {
				t.Fatalf("only %d distinct traces of %d samples", len(files), k)
			}
			if *update && slices.Contains(gCommittedSpecTraces, in.Module) {
				b, err := os.ReadFile(files[0])
				if err != nil {
					t.Fatal(err)
				}
				dst := filepath.Join(tlaDir(t), "traces", fmt.Sprintf("gossipfd_%s_seed%s.itf.json", in.Module, seed))
				if err := os.WriteFile(dst, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("%s: %d distinct traces (of %d samples) conform (total %d spec steps = %d Go steps; %d states compared; final crash counts %v; %d with a false suspicion); quint %.1fs, replay %.1fs",
				in.Module, len(files), k, tot.SpecSteps, tot.GoSteps, tot.Compared, crashes, falseSusp, gen.Seconds(), time.Since(t0).Seconds())
			must := gMustCatch(in)
			for _, mut := range fd.Mutants {
				where := firstDivergence(files, func(file string) error {
					_, err := ReplayGossipITF(file, in, mut)
					return err
				})
				t.Logf("mutant %-22s %s", mut, where)
				for _, m := range must {
					if m == mut && where == "not caught" {
						t.Errorf("no trace of %s tells the Go mutant %s apart", in.Module, mut)
					}
				}
			}
		})
	}
}

// TestGossipfdSpecMutantsDiverge generates traces of the spec-only mutants
// of gossipfd_mutants.qnt (the out-of-phase offsets ignored, the Random
// plan read one round late) and replays them on the correct Go machines of
// the instance each breaks: every trace must diverge, so the replays see
// OFFSETS and PLAN.
func TestGossipfdSpecMutantsDiverge(t *testing.T) {
	quint := quintBin(t)
	q := quintRun{spec: "gossipfd_mutants.qnt", maxSteps: 60}
	for module, base := range map[string]string{
		"brr4oopPhaseIgnored": "brr4oop",
		"rand4s3PlanShifted":  "rand4s3",
	} {
		files, _ := q.traces(t, quint, t.TempDir(), module, 4, quintSeed())
		for _, file := range files {
			_, err := ReplayGossipITF(file, gInst(t, base), mutant.None)
			var d *Divergence
			if !errors.As(err, &d) {
				t.Fatalf("%s: the trace of the spec mutant %s replays on the Go machines of %s (err %v)", filepath.Base(file), module, base, err)
			}
			t.Logf("%s on %s: diverges at state %d after %s", filepath.Base(file), base, d.Step, d.Action)
		}
	}
}

// TestGossipfdSpecViolationsConform has quint find the expected violations
// of the Random and out-of-phase instances (as ci/quint.sh does) and
// replays each violating trace on the Go machines: every state must
// conform, and the Go state the trace ends in must violate the same
// property (the Go check's error text is logged). Random sampling rarely
// crashes the one host that matters (rand4s1: p0), so these traces are the
// spec → code evidence for the false suspicion and the late declaration.
func TestGossipfdSpecViolationsConform(t *testing.T) {
	quint := quintBin(t)
	for _, c := range []struct {
		module, invariant, goProp, seed string
		samples                         int
		mustCatch                       mutant.Name // a Go mutant the trace must tell apart
	}{
		// the ping answered by p2 and p3 is what keeps accuracy here
		{"rand4s1", "NoFalseSuspicion", "no-false-suspicion", quintSeed(), 300, fd.MutantPingNeverAnswers},
		// ci/quint.sh's pinned seed
		{"brr5x2oop", "Completeness", "completeness", "0x85f8", 1, fd.MutantBRROffset2r},
	} {
		dir := t.TempDir()
		out, err := exec.Command(quint, "run", filepath.Join(tlaDir(t), "gossipfd.qnt"), "--main", c.module,
			"--backend", "typescript", "--invariant", c.invariant, "--max-samples", strconv.Itoa(c.samples),
			"--max-steps", "60", "--seed", c.seed, "--mbt", "--verbosity", "1",
			"--out-itf", filepath.Join(dir, c.module+".itf.json")).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "[violation]") {
			t.Fatalf("%s: quint finds no violation of %s (err %v):\n%s", c.module, c.invariant, err, out)
		}
		file := filepath.Join(dir, c.module+".itf.json")
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
}
