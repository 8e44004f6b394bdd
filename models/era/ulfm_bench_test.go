package era

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// ulfmCases are the failure scenarios of the paper's Table 2d.
var ulfmCases = []struct {
	name string
	fail string
}{
	{"root", "0"}, {"child-of-root", "4"}, {"node-master", "16"}, {"non-master", "17"}, {"full-node", "16-31"},
}

// TestULFMBench runs the Figure 3 benchmark at N=64 for each failure case of
// Table 2d and checks, besides every property: the detecting agreement
// returns PROC_FAILED at every live process, the acknowledge-and-agree loop
// ends with a success, and the post-failure agreements return without
// error, at every live process and in every walk.
func TestULFMBench(t *testing.T) {
	for _, c := range ulfmCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fail, err := parseRanks(c.fail, 64)
			if err != nil {
				t.Fatal(err)
			}
			bp := ULFMBenchParams{ERA: Params{N: 64, Fail: fail}, Warmup: 3, Post: 3}
			m, err := NewULFMBenchModel(bp)
			if err != nil {
				t.Fatal(err)
			}
			walks := 30
			if testing.Short() {
				walks = 5
			}
			rep, err := RunULFMBench(bp, walks, 7, 0)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Trace != nil {
				t.Fatalf("violation of %s:\n%s", rep.Trace.Violation.Property, rep.Text)
			}
			for _, k := range []string{"completed_walks", "quiescent_walks", "detect_err_everywhere_walks", "stabilized_walks", "post_ok_walks"} {
				if got := rep.Figures[k]; got != walks {
					t.Errorf("%s = %v, want %d\n%s", k, got, walks, rep.Text)
				}
			}
			// One walk replayed by hand: the program of every live process.
			checkULFMWalk(t, m, fail)
		})
	}
}

// checkULFMWalk runs one walk step by step and checks each live process's
// calls: 3 warm-up agreements, the first two without error, the detecting agreement with
// PROC_FAILED naming every failed rank, stabilization agreements ending
// with one without error, 3 post-failure ones without error; the same
// sequence of values at every live process.
func checkULFMWalk(t *testing.T, m *ULFMBench, fail []core.Rank) {
	t.Helper()
	m.figs = map[int]*ulfmWalk{}
	s := m.Init()[0]
	r := newTestRand(3)
	for steps := 0; !m.Quiescent(s); steps++ {
		a, ok := m.Sample(s, r, nil)
		if !ok || steps > 1_000_000 {
			t.Fatalf("deadlock or runaway after %d steps: %v", steps, s)
		}
		next, err := m.Apply(s, a)
		if err != nil {
			t.Fatal(err)
		}
		s = next
	}
	var failed core.RankSet
	for _, f := range fail {
		failed.Add(f)
		if !s.Crashed(f) {
			t.Errorf("%v not killed", f)
		}
	}
	var ref []erasm.AppCall
	for p := core.Rank(0); int(p) < s.N(); p++ {
		if s.Crashed(p) {
			if app := appOf(s, p); app.Phase() != erasm.PhaseKilled || len(app.Calls()) != 3 {
				t.Errorf("killed %v: phase %v after %d calls, want killed after the 3 warm-up agreements", p, app.Phase(), len(app.Calls()))
			}
			continue
		}
		app := appOf(s, p)
		calls := app.Calls()
		if app.Phase() != erasm.PhaseDone {
			t.Fatalf("%v ended in phase %v", p, app.Phase())
		}
		var phases []erasm.Phase
		for _, c := range calls {
			phases = append(phases, c.Phase)
		}
		if len(calls) < 8 {
			t.Fatalf("%v made %d calls (%v), want at least 8", p, len(calls), phases)
		}
		for a, c := range calls {
			if !c.Returned {
				t.Fatalf("%v: agreement %d did not return", p, a)
			}
			switch {
			case a < 3:
				// The last one may raise PROC_FAILED: a faulty rank is
				// killed once it returned, maybe before others did.
				if c.Phase != erasm.PhaseWarmup || (a < 2 && c.Err()) {
					t.Errorf("%v: warm-up agreement %d: %v err=%v", p, a, c.Phase, c.Err())
				}
			case a == 3:
				if c.Phase != erasm.PhaseDetect || !c.Err() || !c.Value.Failed.Equal(failed) {
					t.Errorf("%v: detecting agreement: %v err=%v value %v, want PROC_FAILED naming %v", p, c.Phase, c.Err(), c.Value, failed)
				}
			case a < len(calls)-3:
				if c.Phase != erasm.PhaseStabilize {
					t.Errorf("%v: agreement %d in phase %v, want stabilize", p, a, c.Phase)
				}
				if last := a == len(calls)-4; last == c.Err() {
					t.Errorf("%v: stabilization agreement %d err=%v (last: %v)", p, a, c.Err(), last)
				}
				if !c.Contribution.Acked.Equal(c.Contribution.Failed) {
					t.Errorf("%v: stabilization agreement %d contributed %v: not all known failures acknowledged", p, a, c.Contribution)
				}
			default:
				if c.Phase != erasm.PhasePost || c.Err() {
					t.Errorf("%v: post-failure agreement %d: %v err=%v", p, a, c.Phase, c.Err())
				}
			}
		}
		if ref == nil {
			ref = calls
			continue
		}
		if len(calls) != len(ref) {
			t.Fatalf("%v made %d calls, another live process %d", p, len(calls), len(ref))
		}
		for a := range calls {
			if !sameValue(calls[a].Value, ref[a].Value) {
				t.Errorf("%v returned %v for a=%d, another live process %v", p, calls[a].Value, a, ref[a].Value)
			}
		}
	}
}

// TestULFMBenchDeterministic: the same seed gives the same report.
func TestULFMBenchDeterministic(t *testing.T) {
	run := func() string {
		bp := ULFMBenchParams{ERA: Params{N: 40, Fail: []core.Rank{4, 5}}, Warmup: 2, Post: 2}
		rep, err := RunULFMBench(bp, 6, 11, 0)
		if err != nil {
			t.Fatal(err)
		}
		delete(rep.Figures, "steps_per_sec")
		delete(rep.Figures, "seconds_per_walk")
		b, err := json.Marshal(rep.Figures)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if a, b := run(), run(); a != b {
		t.Errorf("two runs differ:\n%s\n%s", a, b)
	}
}

// TestULFMBenchCLI runs the command-line scenario with --json.
func TestULFMBenchCLI(t *testing.T) {
	p, err := registry.Lookup("era")
	if err != nil {
		t.Fatal(err)
	}
	fs := newTestFlagSet()
	run := p.Simulate(fs)
	if err := fs.Parse([]string{"--scenario", "ulfm-bench", "--n", "48", "--fail", "16-31", "--walks", "3"}); err != nil {
		t.Fatal(err)
	}
	rep, err := run(context.Background(), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mode != "ulfm-bench" || len(rep.Violations) != 0 {
		t.Fatalf("mode %q violations %v\n%s", rep.Mode, rep.Violations, rep.Text)
	}
	ph, ok := rep.Figures["phases"].(map[string]any)
	if !ok || ph["detect"] == nil || ph["stabilize"] == nil || ph["post"] == nil || ph["warmup"] == nil {
		t.Fatalf("phases: %v", rep.Figures["phases"])
	}
	if _, err := json.Marshal(rep.Figures); err != nil {
		t.Fatal(err)
	}
	// Flags that do not apply are refused.
	fs = newTestFlagSet()
	run = p.Simulate(fs)
	_ = fs.Parse([]string{"--scenario", "ulfm-bench", "--n", "8", "--crashes", "1"})
	if _, err := run(context.Background(), func(string) {}); err == nil {
		t.Error("--crashes 1 accepted with ulfm-bench")
	}
}

func newTestRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

func newTestFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("simulate era", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// TestULFMBenchBFS explores every interleaving of a small benchmark (N=4,
// one warm-up and one post-failure agreement) for a failure of the root and
// of an inner process: every property holds, ulfm-exception included.
func TestULFMBenchBFS(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive")
	}
	for _, fail := range []core.Rank{0, 1} {
		m, err := NewULFMBenchModel(ULFMBenchParams{ERA: Params{N: 4, Fail: []core.Rank{fail}}, Warmup: 1, Post: 1})
		if err != nil {
			t.Fatal(err)
		}
		res := checker.BFS[*env.World](m, checker.Options{MaxStates: 3_000_000})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		for _, tr := range res.Violations {
			t.Errorf("fail=%v: violation of %s after %d steps: %v", fail, tr.Violation.Property, len(tr.Steps), tr.Violation)
		}
		t.Logf("fail=%v: %d states, %d generated, complete=%v, %.1fs", fail, res.States, res.Transitions, res.Complete, res.Seconds)
	}
}

// TestULFMBenchRebalancing (§3 Tree Rebalancing, Figure 2c's four phases):
// after failures, the post-failure agreements run on the mended tree
// without --rebalance and on the tree rebuilt over the survivors with it.
// A failure-free agreement takes 2·depth rounds, so the post phase's rounds
// are 2·Tree.Depth(failed) without rebalancing and 2·RebuiltDepth with it,
// computed here from the tree functions, not from the walks. The cases are
// flat binary and bin/bin (node size 16) at N = 256, with an entire node
// (16–31) and ranks 1–127 (the mended binary tree becomes a star) failed.
func TestULFMBenchRebalancing(t *testing.T) {
	const n = 256
	for _, c := range []struct {
		topo []string
		fail string
		lo   int
	}{
		{[]string{"--topology", "binary"}, "16-31", 16},
		{[]string{"--topology", "binary"}, "1-127", 1},
		{[]string{"--topology", "bin/bin", "--node-size", "16"}, "16-31", 16},
		{[]string{"--topology", "bin/bin", "--node-size", "16"}, "1-127", 1},
	} {
		tree, err := erasm.ParseTree(c.topo[1], map[bool]int{true: 16}[len(c.topo) > 2])
		if err != nil {
			t.Fatal(err)
		}
		failed, _ := parseRanks(c.fail, n)
		var set core.RankSet
		for _, r := range failed {
			set.Add(r)
		}
		mended := tree.Depth(set, n)
		rebuilt := erasm.RebuiltDepth(tree, n, set, core.RankSet{})
		for _, rebalance := range []bool{false, true} {
			args := append([]string{"--scenario", "ulfm-bench", "--n", "256", "--fail", c.fail, "--walks", "2", "--seed", "3"}, c.topo...)
			want := 2 * mended
			if rebalance {
				args = append(args, "--rebalance")
				want = 2 * rebuilt
			}
			rep := simulate(t, "era", args...)
			if rep.Trace != nil {
				t.Fatalf("%v: %v", args, rep.Trace.Violation)
			}
			post := rep.Figures["phases"].(map[string]any)["post"].(*ulfmPhaseFigures)
			if post.MaxRounds != want || post.RoundsPerAg != float64(want) {
				t.Errorf("%v fail %s rebalance=%v: post-failure rounds %.1f (max %d), want 2·depth = %d (mended depth %d, rebuilt %d)",
					tree, c.fail, rebalance, post.RoundsPerAg, post.MaxRounds, want, mended, rebuilt)
			}
		}
		t.Logf("%v fail %s: mended depth %d, rebuilt depth %d", tree, c.fail, mended, rebuilt)
	}
}
