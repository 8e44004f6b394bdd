package props

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// watcher records the crashes the perfect detector reports (EvSuspect);
// mute ignores them; accuse suspects its right neighbour on its call (a
// false suspicion); tick keeps a timer re-arming forever (so runs cycle).
type watcher struct {
	me, n              core.Rank
	mute, accuse, tick bool
	suspected          core.RankSet
}

func (w *watcher) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		if w.accuse {
			w.suspected.Add((w.me + 1) % w.n)
		}
		if w.tick {
			out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: 1})
		}
	case core.EvTimer:
		out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: 1})
	case core.EvSuspect:
		if !w.mute {
			w.suspected.Add(ev.Peer)
		}
	}
	return out, nil
}

func (w *watcher) Clone() core.Machine {
	c := *w
	c.suspected = w.suspected.Clone()
	return &c
}
func (w *watcher) AppendBinary(b []byte) []byte { return w.suspected.AppendBinary(b) }
func (w *watcher) String() string               { return fmt.Sprintf("suspects %v", w.suspected) }

func watcherSuspects(w *env.World, p, q core.Rank) bool {
	return w.Node(p).(*watcher).suspected.Has(q)
}

// runWatchers checks p on three watchers (one crash, each calls once) made
// by mk, exhaustively. Watchers with timers run under the bounded-delay
// timing: there a detector report is due at the crash's tick, while under
// asynchrony a timer that re-arms forever makes a cycle that never takes
// the pending report (no fairness), which would fail completeness for any
// detector.
func runWatchers(t *testing.T, p checker.Property[*env.World], mk func(me core.Rank) *watcher) *checker.Result {
	t.Helper()
	sched := [][]core.Input{{num(0)}, {num(0)}, {num(0)}}
	timing, delta := env.Asynchronous, 0
	if mk(0).tick {
		timing, delta = env.BoundedDelay, 1
	}
	m, err := env.New(env.Config{Name: "watchers", N: 3, Crashes: 1, Schedules: [][][]core.Input{sched}, Timing: timing, Delta: delta,
		NewNode:    func(r core.Rank, n int) core.Machine { w := mk(r); w.me, w.n = r, core.Rank(n); return w },
		Properties: []checker.Property[*env.World]{p}})
	if err != nil {
		t.Fatal(err)
	}
	r := checker.BFS[*env.World](m, checker.Options{Workers: 1})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	return r
}

func TestStrongAccuracy(t *testing.T) {
	acc := StrongAccuracy("accuracy", "", watcherSuspects)
	if r := runWatchers(t, acc, func(core.Rank) *watcher { return &watcher{} }); len(r.Violations) != 0 || !r.Complete {
		t.Fatalf("the perfect detector's reports are accurate: %v", r.Violations)
	}
	r := runWatchers(t, acc, func(me core.Rank) *watcher { return &watcher{accuse: me == 0} })
	if len(r.Violations) != 1 || r.Violations[0].Violation.Message != "p0 suspects p1, which is alive" || len(r.Violations[0].Steps) != 1 {
		t.Fatalf("a false suspicion at p0's call: %v", r.Violations)
	}
}

func TestStrongCompleteness(t *testing.T) {
	comp := StrongCompleteness("completeness", "", watcherSuspects, nil)
	r := runWatchers(t, comp, func(core.Rank) *watcher { return &watcher{} })
	if len(r.Violations) != 0 || !r.Complete || len(r.Bounds) != 1 || r.Bounds[0].Time != 0 || r.Bounds[0].Steps == 0 {
		t.Fatalf("every crash is reported: %v, bounds %v", r.Violations, r.Bounds)
	}
	// A mute p0: the run ends (quiescent) with p0 never suspecting.
	r = runWatchers(t, comp, func(me core.Rank) *watcher { return &watcher{mute: me == 0} })
	if len(r.Violations) != 1 || r.Violations[0].Loop != 0 || !strings.Contains(r.Violations[0].Violation.Message, "p0 is alive and does not suspect the crashed") {
		t.Fatalf("mute p0: %v", r.Violations)
	}
	// With a timer that re-arms forever nothing is quiescent: the
	// violation is a lasso; the correct watchers still pass.
	r = runWatchers(t, comp, func(me core.Rank) *watcher { return &watcher{mute: me == 0, tick: true} })
	if len(r.Violations) != 1 || r.Violations[0].Loop == 0 || !strings.Contains(r.Violations[0].Violation.Message, "p0 is alive and does not suspect the crashed") {
		t.Fatalf("mute p0 with a timer: %v", r.Violations)
	}
	if r := runWatchers(t, comp, func(core.Rank) *watcher { return &watcher{tick: true} }); len(r.Violations) != 0 || !r.Complete {
		t.Fatalf("watchers with a timer: %v", r.Violations)
	}
	// expected excludes p0: its silence is allowed.
	only := StrongCompleteness("completeness", "", watcherSuspects, func(_ *env.World, p, _ core.Rank) bool { return p != 0 })
	if r := runWatchers(t, only, func(me core.Rank) *watcher { return &watcher{mute: me == 0, tick: true} }); len(r.Violations) != 0 {
		t.Fatalf("p0 excluded: %v", r.Violations)
	}
}
