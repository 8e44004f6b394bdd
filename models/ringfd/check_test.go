package ringfd

import (
	"context"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/registry"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

func bfs(t *testing.T, p CheckParams, props ...string) *checker.Result {
	t.Helper()
	m, err := NewCheckModel(p)
	if err != nil {
		t.Fatal(err)
	}
	r := checker.BFS[*env.World](m, checker.Options{Workers: 2, Properties: props})
	if !r.Complete && len(r.Violations) == 0 {
		t.Fatalf("%+v: search incomplete (%s)", p, r.Stop)
	}
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	return r
}

// TestCheckAccuracyBoundary is strong accuracy under bounded delay, found
// exhaustively (N = 3 daemons, one crash at any step, so mending is
// included): for each δ and Δ the least η at which no run has a false
// suspicion, against the hand bound η > max(δ + Δ, 2Δ): the first
// heartbeat leaves at δ and may arrive Δ later, at the very tick the
// initial timeout falls due (within a tick the timer may go first), and
// after mending the request and the heartbeat it triggers take up to 2Δ.
// Also the length of the smallest counterexample just below the bound.
func TestCheckAccuracyBoundary(t *testing.T) {
	for period := uint64(1); period <= 2; period++ {
		for delta := 1; delta <= 2; delta++ {
			safe := uint64(0)
			steps := 0
			bound := max(period+uint64(delta), 2*uint64(delta)) + 1
			for eta := uint64(1); eta <= bound; eta++ {
				r := bfs(t, CheckParams{N: 3, Crashes: 1, Delta: delta, Period: period, Timeout: eta}, PropAccuracy)
				if len(r.Violations) == 0 {
					if safe == 0 {
						safe = eta
					}
					continue
				}
				if safe != 0 {
					t.Fatalf("δ=%d Δ=%d: η=%d safe but η=%d not", period, delta, safe, eta)
				}
				steps = len(r.Violations[0].Steps)
			}
			if safe != bound {
				t.Errorf("δ=%d Δ=%d: least safe η=%d, hand bound max(δ+Δ, 2Δ)+1=%d", period, delta, safe, bound)
			}
			t.Logf("δ=%d Δ=%d: least safe η=%d (η=2δ=%d %s); smallest false suspicion at η=%d: %d steps",
				period, delta, safe, 2*period, map[bool]string{true: "safe", false: "unsafe"}[2*period >= safe], safe-1, steps)
		}
	}
}

// TestCheckProperties: the correct detector passes every property
// exhaustively at small bounds with η = 2δ and Δ < δ, FIFO and unordered.
func TestCheckProperties(t *testing.T) {
	for _, p := range []CheckParams{
		{N: 3, Procs: 1, Crashes: 1, Delta: 1, Period: 2, Timeout: 4},
		{N: 3, Procs: 0, Crashes: 1, Delta: 1, Period: 2, Timeout: 4, NoSkip: true, BMG: fd.BMGOMPI, Network: env.FIFO},
	} {
		r := bfs(t, p)
		if len(r.Violations) != 0 {
			t.Fatalf("%+v: %v", p, r.Violations[0].Violation)
		}
		if !r.Complete {
			t.Fatalf("%+v: search incomplete (%s)", p, r.Stop)
		}
		t.Logf("%+v: %d states, depth %d, all properties hold", p, r.States, r.Depth)
	}
	// Single process crashes are explored: the same bound with daemon
	// crashes only has fewer worlds, and a world with a crashed process of
	// a live daemon is reachable only with them.
	p := CheckParams{N: 3, Procs: 1, Crashes: 1, Delta: 1, Period: 2, Timeout: 4}
	only := p
	only.DaemonCrashesOnly = true
	all, daemons := bfs(t, p), bfs(t, only)
	if daemons.States >= all.States {
		t.Fatalf("daemon crashes only: %d states, with process crashes %d", daemons.States, all.States)
	}
	m, _ := NewCheckModel(p)
	w, err := m.Apply(m.Init()[0], checker.Action{Kind: env.Crash, P: 3})
	if err != nil || !w.Crashed(3) || w.Crashed(0) {
		t.Fatalf("process p3 must crash alone: %v", err)
	}
	t.Logf("N=3 P=1 F=1: %d states with single process crashes, %d with daemon crashes only", all.States, daemons.States)
}

// TestCheckMutantsCaught: each mutant is caught exhaustively, by the
// property named (forward-never and bmg-positive-only need more daemons
// than this bound: at N = 3 every daemon is every other's BMG neighbour;
// see TestCheckForwardNeverAtSix and TestCheckBMGPositiveOnly).
func TestCheckMutantsCaught(t *testing.T) {
	base := CheckParams{N: 3, Crashes: 1, Delta: 1, Period: 2, Timeout: 4, Procs: 1}
	for _, c := range []struct {
		m    string
		prop string
	}{
		{string(fd.MutantNoMending), PropRingRepair},
		{string(fd.MutantObserveSuccessor), PropAccuracy},
		{string(fd.MutantMendShortTimeout), PropAccuracy},
		{string(fd.MutantForwardAlways), PropForwardOnce},
		{string(fd.MutantHostedNotReported), PropCompleteness},
	} {
		p := base
		p.Mutant = mutant.Name(c.m)
		r := bfs(t, p, c.prop)
		if len(r.Violations) == 0 {
			t.Errorf("%s: %s holds", c.m, c.prop)
			continue
		}
		v := r.Violations[0]
		t.Logf("%-32s caught by %s after %d steps (%d states): %s", c.m, c.prop, len(v.Steps), r.States,
			strings.SplitN(v.Violation.Message, "\n", 2)[0])
	}
}

// TestRegistered: ftcheck knows ringfd, its mutants, and simulate prints the
// issue's JSON names.
func TestRegistered(t *testing.T) {
	p, err := registry.Lookup("ringfd")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Mutants) != len(fd.Mutants) {
		t.Fatalf("%d mutants registered, %d in the package", len(p.Mutants), len(fd.Mutants))
	}
	fs := flag.NewFlagSet("simulate ringfd", flag.ContinueOnError)
	run := p.Simulate(fs)
	if err := fs.Parse([]string{"--n", "16", "--procs", "2", "--fail", "3", "--period", "10", "--timeout", "20", "--seed", "5"}); err != nil {
		t.Fatal(err)
	}
	rep, err := run(context.Background(), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"messages_daemon", "messages_process", "messages_heartbeat", "hops_max", "detection_latency", "propagation_latency"} {
		if _, ok := rep.Figures[k]; !ok {
			t.Errorf("simulate report lacks %q", k)
		}
	}
	if rep.Seed != 5 || len(rep.Violations) != 0 || rep.Figures["messages_daemon"] != 15*Degree(16) {
		t.Fatalf("report %+v", rep)
	}
	r, err := p.Build([]string{"--n", "3", "--procs", "1", "--crashes", "1", "--bmg", "ompi", "--skip=false"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Params()["bmg"] != "ompi" || r.Params()["skip"] != "false" {
		t.Fatalf("params %v", r.Params())
	}
	// --symmetry (bound by ftcheck check in the same flag set) is refused
	// for a permuted ring, accepted for the identity.
	for _, c := range []struct {
		ring string
		ok   bool
	}{{"0,2,1,3", false}, {"0,1,2,3", true}, {"", true}} {
		fs := flag.NewFlagSet("check ringfd", flag.ContinueOnError)
		build := p.Define(fs)
		fs.Bool("symmetry", false, "")
		if err := fs.Parse([]string{"--n", "4", "--ring", c.ring, "--symmetry"}); err != nil {
			t.Fatal(err)
		}
		if _, err := build(); (err == nil) != c.ok {
			t.Errorf("--ring %q --symmetry: err %v", c.ring, err)
		}
	}
}

// TestCheckForwardNeverAtSix: forward-never needs a live daemon that is
// not a BMG neighbour of the detector: at N = 6 the links are ±1, ±2
// (±4 ≡ ∓2), so when p0 crashes and p1 detects it, p4 = p1 + 3 hears of it
// only through a forward. The search with rotation symmetry (δ = 3, the
// smallest state space of δ ∈ {1, 2, 3, 4} at N = 4) finds the lasso, the
// same length as without symmetry, at a sixth of the states; it replays on
// the plain model. The correct detector holds at the same bound.
func TestCheckForwardNeverAtSix(t *testing.T) {
	p := CheckParams{N: 6, Crashes: 1, Delta: 1, Period: 3, Timeout: 5, Mutant: fd.MutantForwardNever}
	sm, err := NewSymModel(p)
	if err != nil {
		t.Fatal(err)
	}
	res := checker.BFS[*env.World](sm, checker.Options{Symmetry: true})
	if res.Err != nil || len(res.Violations) == 0 {
		t.Fatalf("forward-never survived %d states (err %v)", res.States, res.Err)
	}
	tr := res.Violations[0]
	if tr.Violation.Property != PropCompleteness || len(tr.Steps) != 137 || tr.Loop != 104 || res.States != 19734 {
		t.Fatalf("caught by %s after %d steps (cycle %d) in %d states; pinned: %s, 137 (104), 19734",
			tr.Violation.Property, len(tr.Steps), tr.Loop, res.States, PropCompleteness)
	}
	var ve *checker.ViolationError
	if _, err := checker.Replay[*env.World](sm.Model, tr); !errors.As(err, &ve) || ve.Violation.Property != PropCompleteness {
		t.Fatalf("replay on the plain model: %v", err)
	}
	t.Logf("forward-never: %s after %d steps (cycle of %d), %d states with symmetry: %s", PropCompleteness, len(tr.Steps), tr.Loop, res.States, tr.Violation.Message)
}

// TestCheckBMGPositiveOnly (FTKERNEL_LONG=1: 13.5 M states, about 4.4 GB
// and 130 s of CPU): bmg-positive-only needs a detector whose positive
// neighbours are all dead with a live daemon beyond. At N = 5 they are
// +1, +2, +4 ≡ −1: with p0, p1 and p3 crashed, p4 detects p3 and sends to
// p0, p1, p3 only, and p2 (= p4 − 2) never hears of it. Rotation symmetry
// makes the search fit; the lasso is pinned.
func TestCheckBMGPositiveOnly(t *testing.T) {
	if os.Getenv("FTKERNEL_LONG") != "1" {
		t.Skip("FTKERNEL_LONG=1 runs it (13.5 M states)")
	}
	p := CheckParams{N: 5, Crashes: 3, Delta: 1, Period: 3, Timeout: 5, Mutant: fd.MutantBMGPositiveOnly}
	sm, err := NewSymModel(p)
	if err != nil {
		t.Fatal(err)
	}
	res := checker.BFS[*env.World](sm, checker.Options{Symmetry: true})
	if res.Err != nil || len(res.Violations) == 0 {
		t.Fatalf("bmg-positive-only survived %d states (err %v)", res.States, res.Err)
	}
	tr := res.Violations[0]
	if tr.Violation.Property != PropCompleteness || len(tr.Steps) != 93 || tr.Loop != 56 || res.States != 13468741 {
		t.Fatalf("caught by %s after %d steps (cycle %d) in %d states; pinned: %s, 93 (56), 13468741",
			tr.Violation.Property, len(tr.Steps), tr.Loop, res.States, PropCompleteness)
	}
	t.Logf("bmg-positive-only: %s after %d steps (cycle of %d), %d states: %s", PropCompleteness, len(tr.Steps), tr.Loop, res.States, tr.Violation.Message)
}
