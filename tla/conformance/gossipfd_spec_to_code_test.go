package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// gLongOnly are the instances TestGossipfdSpecTracesConform runs only with
// FTKERNEL_LONG=1 (a quint run each): rand4s1's false suspicion is the
// committed counterexample of TestGossipfdSpecViolationsConform, rand5s4
// has one behaviour, brr4oop's offsets are also covered by dbrr4x2oop and
// brr5x2oop. TestGossipfdGoTracesInSpec runs them all.
var gLongOnly = []string{"rand4s1", "rand5s4", "brr4oop"}

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
// seed). The instances of gLongOnly run with FTKERNEL_LONG=1 only.
// Knobs: QUINT_CONFORMANCE_TRACES
// (quint samples per instance, default 20), QUINT_SEED.
func TestGossipfdSpecTracesConform(t *testing.T) {
	quint := quintBin(t)
	k := envInt("QUINT_CONFORMANCE_TRACES", 20)
	seed := quintSeed()
	for _, in := range GInstances {
		t.Run(in.Module, func(t *testing.T) {
			if slices.Contains(gLongOnly, in.Module) && os.Getenv("FTKERNEL_LONG") != "1" {
				t.Skip("FTKERNEL_LONG=1 runs it")
			}
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
