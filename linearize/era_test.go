package linearize_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	eramodel "github.com/ftkernel/ftkernel/models/era"

	"github.com/anishathalye/porcupine"
	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/linearize"
	"github.com/ftkernel/ftkernel/statemachine/era"
)

// recorder is an env.Model that keeps, per walk, every world the walk went
// through (checker.Observer). Sample is promoted from the embedded model, so
// walks keep the environment's crash weighting.
type recorder struct {
	*env.Model
	mu   sync.Mutex
	runs [][]*env.World
}

func newRecorder(m *env.Model, walks int) *recorder {
	return &recorder{Model: m, runs: make([][]*env.World, walks)}
}

func (r *recorder) ObserveStep(i int, prev *env.World, _ checker.Action, next *env.World) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.runs[i]) == 0 {
		r.runs[i] = append(r.runs[i], prev)
	}
	r.runs[i] = append(r.runs[i], next)
}

func (r *recorder) ObserveEnd(i int, final *env.World, _ checker.WalkStat) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.runs[i]) == 0 {
		r.runs[i] = []*env.World{final}
	}
}

// setup is one ERA environment of the walks.
type setup struct {
	p      eramodel.Params
	scheds [][][]core.Input
}

func (s setup) String() string {
	var fail []string
	for _, r := range s.p.Fail {
		fail = append(fail, r.String())
	}
	return fmt.Sprintf("n=%d crashes=%d fail=[%s] agreements=%d op=%s topology=%v network=%v crash-prob=%.2f mutant=%q",
		s.p.N, s.p.Crashes, strings.Join(fail, ","), s.p.Agreements, s.p.Op.Name(), s.p.Topology, s.p.Network, s.p.CrashProb, s.p.Mutant)
}

// randomSetup draws an environment of n processes: a crash budget up to
// about n/3 (plus sometimes the root as a Fail rank), one or two concurrent
// agreements, AND or ULFM values, any topology and network, and a few input
// vectors with both flag values (mostly 1, so the AND is not trivially 0)
// and, under ULFM, random failed/acknowledged sets.
func randomSetup(r *rand.Rand, n int, mut mutant.Name) setup {
	p := eramodel.Params{
		N:          n,
		Crashes:    1 + r.IntN(max(1, n/3)),
		Agreements: 1 + r.IntN(2),
		Values:     2,
		Topology:   era.Topology(r.IntN(3)),
		Network:    env.Network(r.IntN(2)),
		Op:         era.And,
		CrashProb:  0.02 + 0.08*r.Float64(),
		Mutant:     mut,
	}
	if r.IntN(3) == 0 {
		p.Op = era.ULFM
	}
	if r.IntN(4) == 0 {
		p.Fail = []core.Rank{0}
	}
	var scheds [][][]core.Input
	for range 4 {
		s := make([][]core.Input, n)
		for q := range s {
			for a := range p.Agreements {
				flag := uint64(1)
				if r.IntN(3) == 0 {
					flag = 0
				}
				var v era.Value = era.Flag(flag)
				if p.Op == era.ULFM {
					var failed, acked core.RankSet
					for k := range n {
						if r.IntN(4*n) == 0 {
							failed.Add(core.Rank(k))
						}
						if r.IntN(2*n) == 0 {
							acked.Add(core.Rank(k))
						}
					}
					v = era.NewContribution(flag, failed, acked)
				}
				s[q] = append(s[q], era.Contribute{A: uint64(a), V: v})
			}
		}
		scheds = append(scheds, s)
	}
	return setup{p: p, scheds: scheds}
}

// model builds the environment; without props it checks nothing itself, so
// that a walk of a mutant runs to its end and porcupine alone judges it.
func (s setup) model(t testing.TB, withProps bool) *env.Model {
	t.Helper()
	m, err := eramodel.NewModel(s.p, s.scheds)
	if err != nil {
		t.Fatal(err)
	}
	if withProps {
		return m
	}
	cfg := m.Config()
	cfg.Properties = nil
	m, err = env.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// traceOf rebuilds the trace of a recorded run (Init index, actions and
// their descriptions).
func traceOf(m *env.Model, worlds []*env.World) *checker.Trace {
	tr := &checker.Trace{Model: m.Name(), Params: m.Params(), Init: worlds[0].Schedule()}
	for i := 1; i < len(worlds); i++ {
		a := worlds[i].LastAction()
		tr.Steps = append(tr.Steps, checker.Step{Action: a, Text: m.Describe(worlds[i-1], a)})
	}
	return tr
}

// walkStats are the counts reported by the tests.
type walkStats struct {
	walks, steps, calls, returns, pending, crashedWalks, decidedWalks, events int
}

func (st *walkStats) add(worlds []*env.World, h linearize.History) {
	st.walks++
	st.steps += len(worlds) - 1
	st.events += len(h)
	calls, rets := 0, 0
	for _, e := range h {
		if e.Kind == linearize.Call {
			calls++
		} else {
			rets++
		}
	}
	st.calls += calls
	st.returns += rets
	st.pending += calls - rets
	if worlds[len(worlds)-1].NumCrashed() > 0 {
		st.crashedWalks++
	}
	if rets > 0 {
		st.decidedWalks++
	}
}

func (st walkStats) String() string {
	return fmt.Sprintf("%d walks, %d steps, %d history events (%d calls, %d returns, %d calls never returned), %d walks with a crash, %d with a return",
		st.walks, st.steps, st.events, st.calls, st.returns, st.pending, st.crashedWalks, st.decidedWalks)
}

// TestERAWalksLinearizable runs seeded random walks of the correct ERA at
// N = 5 … 16 with crashes (the walks check every §2.1 property as they go)
// and checks the history of every walk with porcupine: all must be
// linearizable. Every history is also rebuilt by replaying the walk's trace
// (checker.Replay) and must come out identical.
func TestERAWalksLinearizable(t *testing.T) {
	walksPerSetup, setupsPerN := 20, 4
	if testing.Short() {
		walksPerSetup, setupsPerN = 5, 2
	}
	r := rand.New(rand.NewPCG(2024, 5))
	var total, uniformIllegal walkStats
	for n := 5; n <= 16; n++ {
		for k := range setupsPerN {
			su := randomSetup(r, n, mutant.None)
			rec := newRecorder(su.model(t, true), walksPerSetup)
			res := checker.Walk[*env.World](rec, checker.WalkOptions{
				Walks: walksPerSetup, MaxSteps: 400 * n, Seed: uint64(1000*n + k)})
			if res.Err != nil {
				t.Fatalf("%v: walk: %v", su, res.Err)
			}
			if res.Violation != nil {
				t.Fatalf("%v: the correct ERA violates a property:\n%s", su, res.Violation)
			}
			f, desc := linearize.ERACombine(su.p.Op), linearize.ERADescribe(su.p.Op)
			for i, worlds := range rec.runs {
				if !res.PerWalk[i].Quiescent {
					t.Fatalf("%v walk %d did not reach quiescence in %d steps", su, i, res.PerWalk[i].Steps)
				}
				h, err := linearize.FromERAWorlds(worlds)
				if err != nil {
					t.Fatalf("%v walk %d: %v", su, i, err)
				}
				total.add(worlds, h)
				dir := t.TempDir()
				html := filepath.Join(dir, "porcupine.html")
				ok, err := linearize.Check(h, f, desc, html)
				if err != nil {
					t.Fatalf("%v walk %d: %v", su, i, err)
				}
				if !ok {
					tr := traceOf(rec.Model, worlds)
					_ = tr.WriteFile(filepath.Join(dir, "trace.json"))
					t.Fatalf("%v walk %d: history not linearizable (visualisation %s)\n%s", su, i, html, tr)
				}
				// The replayed trace gives the same history.
				h2, _, err := linearize.FromERATrace(rec.Model, traceOf(rec.Model, worlds))
				if err != nil {
					t.Fatalf("%v walk %d: replay: %v", su, i, err)
				}
				if diff := cmp.Diff(h, h2); diff != "" {
					t.Fatalf("%v walk %d: replayed history differs (-walk +replay):\n%s", su, i, diff)
				}
				// Uniform reading: keep the returns of processes that crashed.
				hu, err := linearize.FromERAWorldsOpt(worlds, linearize.ERAHistoryOptions{KeepCrashedReturns: true})
				if err != nil {
					t.Fatal(err)
				}
				if ok, err := linearize.Check(hu, f, desc, ""); err != nil {
					t.Fatal(err)
				} else if !ok {
					uniformIllegal.add(worlds, hu)
				}
			}
		}
	}
	t.Logf("porcupine checked %s: all linearizable", total)
	t.Logf("with the returns of crashed processes kept (uniform agreement, which ERA does not promise): %d of %d histories not linearizable", uniformIllegal.walks, total.walks)
}

// mutantOutcome is what the porcupine hunt found for one mutant.
type mutantOutcome struct {
	name   mutant.Name
	walks  int // walks checked until the first illegal history (or all)
	caught bool
	setup  setup
	steps  int    // length of the walk whose history is illegal
	events int    // its history events
	props  string // the property Replay reports on that walk's trace, or ""
	dir    string // where the trace and visualisation were written
}

// huntMutant runs walks of mutant mut (properties off) until porcupine
// rejects a history, at most budget walks, and writes the trace and
// porcupine's visualisation of the first rejected history into dir.
func huntMutant(t *testing.T, mut mutant.Name, budget int, dir string) mutantOutcome {
	out := mutantOutcome{name: mut}
	r := rand.New(rand.NewPCG(7, uint64(len(mut))))
	const walksPerSetup = 20
	for out.walks < budget {
		n := 5 + r.IntN(12)
		su := randomSetup(r, n, mut)
		m := su.model(t, false)
		rec := newRecorder(m, walksPerSetup)
		res := checker.Walk[*env.World](rec, checker.WalkOptions{Walks: walksPerSetup, MaxSteps: 400 * n, Seed: r.Uint64()})
		if res.Err != nil {
			t.Fatalf("%s %v: walk: %v", mut, su, res.Err)
		}
		f, desc := linearize.ERACombine(su.p.Op), linearize.ERADescribe(su.p.Op)
		for _, worlds := range rec.runs {
			out.walks++
			h, err := linearize.FromERAWorlds(worlds)
			if err != nil {
				t.Fatalf("%s %v: %v", mut, su, err)
			}
			html := filepath.Join(dir, "porcupine.html")
			res, err := linearize.CheckTimeout(h, f, desc, html, 0)
			if err != nil {
				t.Fatalf("%s %v: %v", mut, su, err)
			}
			if res == porcupine.Ok {
				continue
			}
			out.caught, out.setup, out.steps, out.events, out.dir = true, su, len(worlds)-1, len(h), dir
			tr := traceOf(m, worlds)
			if err := tr.WriteFile(filepath.Join(dir, "trace.json")); err != nil {
				t.Fatal(err)
			}
			// What do the §2.1 properties say about the same run?
			_, _, err = linearize.FromERATrace(su.model(t, true), tr)
			var verr *checker.ViolationError
			if errors.As(err, &verr) {
				out.props = fmt.Sprintf("%s after step %d", verr.Violation.Property, verr.Violation.Steps)
			}
			return out
		}
	}
	return out
}

// TestERAMutantsPorcupine: porcupine alone (the walks check no property)
// must reject a history of MutantEarlyRootDecision and of
// MutantDownFromAnyone; the trace and porcupine's HTML visualisation are
// written side by side. The other mutants are surveyed with
// FTKERNEL_LINEARIZE_SURVEY=1 (see fuzz/README.md for the table); set
// FTKERNEL_LINEARIZE_OUT to keep the files.
func TestERAMutantsPorcupine(t *testing.T) {
	muts := []mutant.Name{era.MutantEarlyRootDecision, era.MutantDownFromAnyone}
	budget := 5000
	survey := os.Getenv("FTKERNEL_LINEARIZE_SURVEY") != ""
	if survey {
		muts = era.Mutants
		budget = 20000
	}
	for _, mut := range muts {
		t.Run(string(mut), func(t *testing.T) {
			dir := t.TempDir()
			if keep := os.Getenv("FTKERNEL_LINEARIZE_OUT"); keep != "" {
				dir = filepath.Join(keep, string(mut))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			o := huntMutant(t, mut, budget, dir)
			if !o.caught {
				msg := fmt.Sprintf("porcupine accepted all %d histories of mutant %s", o.walks, mut)
				if survey {
					t.Log("NOT CAUGHT: " + msg)
					return
				}
				t.Fatal(msg)
			}
			for _, f := range []string{"trace.json", "porcupine.html"} {
				if st, err := os.Stat(filepath.Join(o.dir, f)); err != nil || st.Size() == 0 {
					t.Fatalf("%s not written: %v", f, err)
				}
			}
			t.Logf("CAUGHT after %d walks: %v; walk of %d steps, %d history events; properties on the same trace: %q; files in %s",
				o.walks, o.setup, o.steps, o.events, o.props, o.dir)
		})
	}
}

// TestFromERAWorldsErrors covers the adapter's error paths and its
// treatment of crashed processes on a hand-made run.
func TestFromERAWorldsErrors(t *testing.T) {
	p := eramodel.Params{N: 3, Crashes: 1, Agreements: 1, Values: 2, Op: era.And}
	sched := [][]core.Input{
		{era.Contribute{A: 0, V: era.Flag(1)}},
		{era.Contribute{A: 0, V: era.Flag(1)}},
		{era.Contribute{A: 0, V: era.Flag(0)}},
	}
	m, err := eramodel.NewModel(p, [][][]core.Input{sched})
	if err != nil {
		t.Fatal(err)
	}
	// Run to quiescence taking the first enabled non-crash action, then
	// crash p2 (it returned before).
	worlds := []*env.World{m.Init()[0]}
	for s := worlds[0]; !m.Quiescent(s); {
		var next *env.World
		for _, a := range m.Actions(s, nil) {
			if a.Kind != env.Crash {
				if next, err = m.Apply(s, a); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
		s = next
		worlds = append(worlds, s)
	}
	h, err := linearize.FromERAWorlds(worlds)
	if err != nil {
		t.Fatal(err)
	}
	calls, rets := 0, 0
	for _, e := range h {
		if e.Kind == linearize.Call {
			calls++
		} else {
			rets++
		}
	}
	if calls != 3 || rets != 3 {
		t.Fatalf("history %v: want 3 calls and 3 returns", h)
	}
	crashed, err := m.Apply(worlds[len(worlds)-1], checker.Action{Kind: env.Crash, P: 2})
	if err != nil {
		t.Fatal(err)
	}
	h2, err := linearize.FromERAWorlds(append(worlds, crashed))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range h2 {
		if e.Kind == linearize.Return && e.Process == 2 {
			t.Fatalf("crashed p2's return kept: %v", h2)
		}
	}
	if len(h2) != 5 {
		t.Fatalf("after p2 crashes: %d events, want 5", len(h2))
	}
	if _, err := linearize.FromERAWorlds([]*env.World{worlds[0], worlds[2]}); err == nil {
		t.Fatal("non-consecutive worlds: want an error")
	}
	if h, err := linearize.FromERAWorlds(nil); err != nil || h != nil {
		t.Fatalf("no worlds: %v, %v", h, err)
	}
	// Combine on canonical encodings.
	and := linearize.ERACombine(era.And)
	if got, err := and(era.Flag(3).AppendBinary(nil), era.Flag(5).AppendBinary(nil)); err != nil || string(got) != string(era.Flag(1).AppendBinary(nil)) {
		t.Fatalf("and(3,5) = %x, %v", got, err)
	}
	if _, err := and([]byte{0x80}, era.Flag(1).AppendBinary(nil)); err == nil {
		t.Fatal("truncated varint: want an error")
	}
	if _, err := and(append(era.Flag(1).AppendBinary(nil), 0), era.Flag(1).AppendBinary(nil)); err == nil {
		t.Fatal("trailing byte: want an error")
	}
	var f1, a1, f2, a2 core.RankSet
	f1.Add(1)
	a1.Add(1)
	a1.Add(2)
	f2.Add(2)
	a2.Add(2)
	ulfm := linearize.ERACombine(era.ULFM)
	got, err := ulfm(era.NewContribution(3, f1, a1).AppendBinary(nil), era.NewContribution(1, f2, a2).AppendBinary(nil))
	if err != nil {
		t.Fatal(err)
	}
	var fw, aw core.RankSet
	fw.Add(1)
	fw.Add(2)
	aw.Add(2)
	if want := era.NewContribution(1, fw, aw).AppendBinary(nil); string(got) != string(want) {
		t.Fatalf("ulfm combine = %x, want %x", got, want)
	}
}
