package conformance

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/internal/mutant"
	gm "github.com/ftkernel/ftkernel/models/gossipfd"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// gCrashProb is the probability that a step of a Go walk is a crash, while
// one is enabled (within the budget and the crash window).
const gCrashProb = 0.2

// gossipWalk is a seeded random walk of the instance's Go round model (a
// mutant's when mut is set) up to the horizon: at each step a crash of a
// random live host with probability gCrashProb when one is enabled, else
// the round.
func gossipWalk(t testing.TB, in GInstance, mut mutant.Name, seed uint64) (*gm.CheckModel, *checker.Trace) {
	m, err := in.Model(mut)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 0x90551b))
	s := m.Init()[0]
	tr := &checker.Trace{Model: m.Name(), Seed: &seed}
	for {
		acts := m.Actions(s, nil)
		if len(acts) == 0 {
			break
		}
		var crashes []checker.Action
		round := acts[len(acts)-1]
		for _, a := range acts {
			if !strings.HasPrefix(m.Describe(s, a), "round ") {
				crashes = append(crashes, a)
			} else {
				round = a
			}
		}
		a := round
		if len(crashes) > 0 && r.Float64() < gCrashProb {
			a = crashes[r.IntN(len(crashes))]
		}
		tr.Steps = append(tr.Steps, checker.Step{Action: a, Text: m.Describe(s, a)})
		if s, err = m.Apply(s, a); err != nil {
			t.Fatal(err)
		}
	}
	return m, tr
}

// gCommittedWalk is the committed Go walk: instance, seed, file name.
const (
	gCommittedModule = "brr4x2"
	gCommittedSeed   = 0
	gCommittedName   = "gossipfd_brr4x2_walk0"
	gReplayModule    = "replayGossipfd"
)

// TestGossipfdGoTracesInSpec turns seeded random walks of the Go round
// model of every instance of gossipfd.qnt into ITF files and Quint run
// tests, and runs them with one `quint test`: every Go step must be a spec
// step reaching the same state (the image code). The same module replays a
// walk of the Go mutant brr-offset-2r (brr4) and one of cleanup-ge
// (dbrr4x2), a walk of brr4oop in brr4 (other offsets) and one of rand4s3
// in rand4s1 (another plan), whose tests must fail. With -update it rewrites the
// committed walk in tla/traces/go/ (gossipfd_brr4x2_walk0.{itf,trace}.json
// and replayGossipfd.qnt). Knob: GO_WALKS (walks per instance, default 2).
func TestGossipfdGoTracesInSpec(t *testing.T) {
	quint := quintBin(t)
	walks := envInt("GO_WALKS", 2)
	dir := t.TempDir()
	if d := os.Getenv("CONFORMANCE_KEEP"); d != "" {
		dir = d
	}
	var runs, names []string
	steps, crashes, falseSusp := 0, 0, 0
	for _, in := range GInstances {
		for i := range walks {
			name := fmt.Sprintf("%s_walk%d", in.Module, i)
			m, tr := gossipWalk(t, in, mutant.None, uint64(i))
			g, err := FromGossipChecker(in, m, tr)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			last := g.Steps[len(g.Steps)-1].State
			steps += len(g.Steps)
			for _, c := range last.Crashed {
				if c > 0 {
					crashes++
				}
			}
			if last.FalseSusp != nil {
				falseSusp++
			}
			b, err := g.ITF(tr.Model)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name+".itf.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			run, err := g.QuintRun(name + "Test")
			if err != nil {
				t.Fatal(err)
			}
			runs, names = append(runs, run), append(names, name+"Test")
			if *update && in.Module == gCommittedModule && i == gCommittedSeed {
				committed := filepath.Join(tlaDir(t), "traces", "go")
				writeCommitted(t, committed, gCommittedName, b, tr)
				src, err := GossipQuintModule(gReplayModule, "../../gossipfd", []GInstance{in}, strings.Replace(run, name+"Test", gCommittedName+"Test", 1))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(committed, gReplayModule+".qnt"), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// the replay has teeth: walks of Go mutants must not replay
	// (and walks replayed in an instance with other OFFSETS or another PLAN)
	bad := map[string]struct {
		in       GInstance
		mut      mutant.Name
		replayIn string // the instance replaying the walk; "" is in
	}{
		"mutantRoutingTest": {gInst(t, "brr4"), fd.MutantBRROffset2r, ""},
		"mutantCleanupTest": {gInst(t, "dbrr4x2"), fd.MutantCleanupGE, ""},
		"otherPhaseTest":    {gInst(t, "brr4oop"), mutant.None, "brr4"},
		"otherPlanTest":     {gInst(t, "rand4s3"), mutant.None, "rand4s1"},
	}
	for name, b := range bad {
		m, tr := gossipWalk(t, b.in, b.mut, 0)
		g, err := FromGossipChecker(b.in, m, tr)
		if err != nil {
			t.Fatal(err)
		}
		g.Instance = b.in // replayed in the protocol's instance
		if b.replayIn != "" {
			g.Instance = gInst(t, b.replayIn)
		}
		run, err := g.QuintRun(name)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	const module = "replayGossipfdWalks"
	src, err := GossipQuintModule(module, "./gossipfd", GInstances, runs...)
	if err != nil {
		t.Fatal(err)
	}
	_, took := quintTestWalks(t, quint, "gossipfd.qnt", dir, module, src, names, slices.Collect(maps.Keys(bad)))
	t.Logf("%d Go walks (%d steps, %d crashes, %d with a false suspicion; instances %d) replay in gossipfd.qnt; the walks of the Go mutants brr-offset-2r and cleanup-ge, and the walks replayed under other offsets or another plan, do not; quint test %.1fs",
		len(names), steps, crashes, falseSusp, len(GInstances), took.Seconds())
}

// TestGossipfdCommittedGoTrace checks that the committed Go walk
// (tla/traces/go/gossipfd_brr4x2_walk0.trace.json) still replays on the
// Go round model and gives the committed ITF states, and that
// replayGossipfd.qnt (which ci/quint.sh runs) is its current translation;
// it needs no quint.
func TestGossipfdCommittedGoTrace(t *testing.T) {
	dir := filepath.Join(tlaDir(t), "traces", "go")
	in := gInst(t, gCommittedModule)
	m, err := in.Model(mutant.None)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := checker.ReadTraceFile(filepath.Join(dir, gCommittedName+".trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := FromGossipChecker(in, m, tr)
	if err != nil {
		t.Fatal(err)
	}
	requireCommittedITF(t, filepath.Join(dir, gCommittedName+".itf.json"), len(g.Steps)+1, func(i int) GState {
		if i == 0 {
			return g.Init
		}
		return g.Steps[i-1].State
	}, fromGossipSpec)
	run, err := g.QuintRun(gCommittedName + "Test")
	if err != nil {
		t.Fatal(err)
	}
	src, err := GossipQuintModule(gReplayModule, "../../gossipfd", []GInstance{in}, run)
	if err != nil {
		t.Fatal(err)
	}
	requireCurrentModule(t, filepath.Join(dir, gReplayModule+".qnt"), src,
		"traces/go/replayGossipfd.qnt is stale: go test ./tla/conformance -run TestGossipfdGoTracesInSpec -update")
}
