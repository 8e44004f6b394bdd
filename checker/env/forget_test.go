package env

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// The counter toy of the forgetting tests: a process's one call arms timer
// 1; each firing counts a tick and re-arms it, until the K-th tick, which
// returns the call (EffReturn) and sets done. The ticks split worlds; only
// done is read by a property ("done-kept", below), so Forget resets the
// ticks and keeps done. wrong (a test-only variant) also resets done.
type counter struct {
	me    core.Rank
	k     int
	ticks int
	done  bool
	wrong bool
}

type counterCall struct{}

func (counterCall) AppendBinary(b []byte) []byte { return append(b, 'T') }
func (counterCall) String() string               { return "Tick()" }

func (t *counter) Clone() core.Machine { c := *t; return &c }

func (t *counter) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(t.ticks))
	return core.AppendBool(b, t.done)
}

func (t *counter) String() string {
	return fmt.Sprintf("counter %v ticks=%d done=%t", t.me, t.ticks, t.done)
}

func (t *counter) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch {
	case ev.Kind == core.EvCall:
		return append(out, core.Effect{Kind: core.EffSetTimer, Timer: 1}), nil
	case ev.Kind == core.EvSuspect:
		return out, nil
	case ev.Kind == core.EvTimer && ev.Timer == 1 && !t.done:
		t.ticks++
		if t.ticks < t.k {
			return append(out, core.Effect{Kind: core.EffSetTimer, Timer: 1}), nil
		}
		t.done = true
		return append(out, core.Return(0, nil)), nil
	}
	return out, fmt.Errorf("counter: unexpected %v", ev)
}

// Forget keeps done, the only field a property reads; the wrong variant
// drops it.
func (t *counter) Forget() core.Machine {
	return &counter{me: t.me, k: t.k, done: t.done && !t.wrong, wrong: t.wrong}
}

// doneKept is a transition property that reads the actor's node after
// every step, the crash step included: done never goes back to false.
var doneKept = checker.Property[*World]{Name: "done-kept", Kind: checker.Transition,
	CheckStep: func(prev *World, _ checker.Action, next *World) error {
		p := next.LastActor()
		if p == core.NoRank {
			return nil
		}
		if prev.Node(p).(*counter).done && !next.Node(p).(*counter).done {
			return fmt.Errorf("%v was done and is no longer", p)
		}
		return nil
	}}

// counterConfig is n tickers of k ticks, each calling once, with the given
// crash budget.
func counterConfig(n, k, crashes int, wrong bool) Config {
	calls := make([][]core.Input, n)
	for p := range calls {
		calls[p] = []core.Input{counterCall{}}
	}
	return Config{N: n, Crashes: crashes, Detector: DetectorNone,
		NewNode:    func(p core.Rank, _ int) core.Machine { return &counter{me: p, k: k, wrong: wrong} },
		Schedules:  [][][]core.Input{calls},
		Properties: []checker.Property[*World]{doneKept},
		Codec: Codec{
			Node: func(b []byte, p core.Rank, _ int) (core.Machine, error) {
				d := core.NewDecoder(b)
				t := &counter{me: p, k: k, wrong: wrong}
				t.ticks = int(d.Uint())
				t.done = d.Bool()
				return t, d.Finish()
			},
			Message: func([]byte) (core.Message, error) { return nil, errors.New("counter: no messages") },
		}}
}

// worlds explores m and returns the encodings of its worlds and of its
// quiescent worlds.
func worlds(t *testing.T, m *Model) (all, quiet map[string]*World) {
	t.Helper()
	all, quiet = map[string]*World{}, map[string]*World{}
	explore(t, m, 10_000, func(s *World, _ []checker.Action) {
		all[enc(m, s)] = s
		if m.Quiescent(s) {
			quiet[enc(m, s)] = s
		}
	})
	return all, quiet
}

// TestForgetCounterCounts: one counter of K = 3 ticks with one crash, counted
// by hand. Without forgetting: 5 live worlds (before the call, then 0, 1,
// 2, 3 ticks) and the crash of each, 10 worlds, 6 quiescent (the done one
// and the 5 crashed). With forgetting the crashed worlds are 3: crashed
// before the call, after it and not done (0, 1 or 2 ticks, merged), and
// done (its return in the history): 8 worlds, 4 quiescent.
func TestForgetCounterCounts(t *testing.T) {
	plain := mustNew(t, counterConfig(1, 3, 1, false))
	cfg := counterConfig(1, 3, 1, false)
	cfg.ForgetCrashed = true
	forget := mustNew(t, cfg)
	pa, pq := worlds(t, plain)
	fa, fq := worlds(t, forget)
	if len(pa) != 10 || len(pq) != 6 || len(fa) != 8 || len(fq) != 4 {
		t.Fatalf("plain %d worlds (%d quiescent), forgetting %d (%d): want 10 (6), 8 (4)", len(pa), len(pq), len(fa), len(fq))
	}
	if plain.Name()+" forget-crashed" != forget.Name() {
		t.Errorf("names %q and %q: want the second to be the first with \" forget-crashed\"", plain.Name(), forget.Name())
	}
}

// TestForgetIsTheImage: on tickers (one crash; two crashes; a host whose
// crash takes its hosted rank; a Fail rank; the perfect detector, whose
// detections a crashed process forgets), the worlds of the forgetting
// model are exactly the plain worlds mapped through Model.Forgotten
// (compared by encoding), the same for the quiescent ones, every crashed
// node of a forgetting world is forgotten and has no detection, and every
// forgetting world
// decodes to itself.
func TestForgetIsTheImage(t *testing.T) {
	hosted := counterConfig(3, 2, 1, false)
	hosted.Hosts = []core.Rank{0, 0, 2}
	fail := counterConfig(2, 2, 0, false)
	fail.Fail = []core.Rank{1}
	detector := counterConfig(3, 1, 2, false)
	detector.Detector = DetectorPerfect
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"n=2 crashes=1", counterConfig(2, 2, 1, false)},
		{"n=2 crashes=2", counterConfig(2, 3, 2, false)},
		{"hosts", hosted},
		{"fail", fail},
		{"detector", detector},
	} {
		name, cfg := c.name, c.cfg
		plain := mustNew(t, cfg)
		cfg.ForgetCrashed = true
		forget := mustNew(t, cfg)
		pa, pq := worlds(t, plain)
		fa, fq := worlds(t, forget)
		image := func(ws map[string]*World) map[string]bool {
			out := map[string]bool{}
			for _, w := range ws {
				fw, err := plain.Forgotten(w)
				if err != nil {
					t.Fatal(err)
				}
				out[enc(plain, fw)] = true
			}
			return out
		}
		pi, pqi := image(pa), image(pq)
		if len(pi) != len(fa) || len(pqi) != len(fq) || len(fa) >= len(pa) {
			t.Fatalf("%s: plain %d worlds (%d quiescent), their image %d (%d), forgetting %d (%d)", name, len(pa), len(pq), len(pi), len(pqi), len(fa), len(fq))
		}
		for k, w := range fa {
			if !pi[k] {
				t.Fatalf("%s: forgetting world %v is no plain world's image", name, w)
			}
			for p := range core.Rank(cfg.N) {
				if tk := w.Node(p).(*counter); w.Crashed(p) && tk.ticks != 0 {
					t.Fatalf("%s: crashed %v not forgotten in %v: %v", name, p, w, tk)
				}
				for q := range core.Rank(cfg.N) {
					if w.Crashed(p) && w.Detected(p, q) {
						t.Fatalf("%s: crashed %v keeps its detection of %v in %v", name, p, q, w)
					}
				}
			}
			d, err := forget.Decode([]byte(k))
			if err != nil || enc(forget, d) != k {
				t.Fatalf("%s: %v does not decode to itself: %v", name, w, err)
			}
			if again, err := forget.Forgotten(w); err != nil || enc(forget, again) != k {
				t.Fatalf("%s: forgetting %v again changes it (%v)", name, w, err)
			}
		}
		for k := range fq {
			if !pqi[k] {
				t.Fatalf("%s: a quiescent forgetting world is no quiescent plain world's image", name)
			}
		}
		t.Logf("%s: %d worlds → %d, %d quiescent → %d", name, len(pa), len(fa), len(pq), len(fq))
	}
}

// TestForgetWrongIsVisible: the wrong counter Forget (done dropped) makes
// done-kept fail at the crash of a done process, which the plain model
// never does: the verdicts differ, which is what the guard
// (envtest.CompareForget) checks.
func TestForgetWrongIsVisible(t *testing.T) {
	for _, wrong := range []bool{false, true} {
		cfg := counterConfig(1, 2, 1, wrong)
		cfg.ForgetCrashed = true
		m := mustNew(t, cfg)
		res := checker.DFS[*World](m, checker.Options{})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		if got := len(res.Violations) > 0; got != wrong {
			t.Fatalf("wrong=%t: violations %v", wrong, res.Violations)
		}
	}
}

// notForgetter is a node without Forget (it never steps here).
type notForgetter struct{}

func (*notForgetter) Step(_ core.Event, out []core.Effect) ([]core.Effect, error) {
	return out, errors.New("notForgetter: no steps")
}
func (n *notForgetter) Clone() core.Machine        { return &notForgetter{} }
func (*notForgetter) AppendBinary(b []byte) []byte { return b }
func (*notForgetter) String() string               { return "notForgetter" }

// TestForgetNeedsForgetters: ForgetCrashed with a node that is not a
// Forgetter is a configuration error.
func TestForgetNeedsForgetters(t *testing.T) {
	cfg := counterConfig(1, 2, 1, false)
	cfg.NewNode = func(p core.Rank, _ int) core.Machine { return &notForgetter{} }
	cfg.ForgetCrashed = true
	if _, err := New(cfg); !errors.Is(err, ErrConfig) {
		t.Fatalf("New: %v, want ErrConfig", err)
	}
	cfg.ForgetCrashed = false
	m := mustNew(t, cfg)
	if _, err := m.Forgotten(m.Init()[0]); err != nil {
		t.Fatalf("Forgotten of a world without crashes: %v", err)
	}
	w := run(t, m, m.Init()[0], act(Crash, 0, 0, 0))
	if _, err := m.Forgotten(w); !errors.Is(err, ErrConfig) {
		t.Fatalf("Forgotten of a crashed non-Forgetter: %v, want ErrConfig", err)
	}
}
