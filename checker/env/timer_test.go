package env

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// ticker arms timer 1 on its call and, each time it fires, sends a TICK to
// its right neighbour and re-arms it until it has ticked `limit` times;
// wakeup timer 7 makes it deliver.
type ticker struct {
	me         core.Rank
	n, limit   int
	ticks      int
	woken, got int
}

type tick struct{}

func (tick) Kind() string                 { return "TICK" }
func (tick) AppendBinary(b []byte) []byte { return append(b, 'T') }
func (tick) String() string               { return "TICK" }

func (t *ticker) Clone() core.Machine { c := *t; return &c }
func (t *ticker) AppendBinary(b []byte) []byte {
	return fmt.Appendf(b, "%d/%d/%d", t.ticks, t.woken, t.got)
}
func (t *ticker) String() string { return string(t.AppendBinary(nil)) }
func (t *ticker) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: 1, Delay: 5})
		// Arming twice replaces: still one pending Fire.
		return append(out, core.Effect{Kind: core.EffSetTimer, Timer: 1, Delay: 9}), nil
	case core.EvTimer:
		switch ev.Timer {
		case 1:
			t.ticks++
			out = append(out, core.Send(core.Rank((int(t.me)+1)%t.n), tick{}))
			if t.ticks < t.limit {
				out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: 1})
			}
			return out, nil
		case 7:
			t.woken++
			return append(out, core.Deliver(0, val(t.got))), nil
		}
	case core.EvReceive:
		t.got++
		return out, nil
	case core.EvSuspect:
		return out, nil
	}
	return out, fmt.Errorf("unexpected %v", ev)
}

func tickerConfig(n, limit int) Config {
	calls := make([][]core.Input, n)
	for p := range calls {
		calls[p] = []core.Input{in{A: 0, V: 1}}
	}
	return Config{Name: "ticker", N: n, Schedules: [][][]core.Input{calls},
		NewNode: func(p core.Rank, n int) core.Machine { return &ticker{me: p, n: n, limit: limit} }}
}

func TestTimerFireRearmAndQuiescence(t *testing.T) {
	m := mustNew(t, tickerConfig(2, 2))
	s := run(t, m, m.Init()[0], act(Call, 0, 0, 0))
	if got := s.Timers(0); len(got) != 1 || got[0] != 1 {
		t.Fatalf("timers after call = %v, want [1]", got)
	}
	if !has(m.Actions(s, nil), act(Fire, 0, 0, 1)) || m.Quiescent(s) {
		t.Fatal("armed timer must be an enabled Fire and make the world non-quiescent")
	}
	if _, err := m.Apply(s, act(Fire, 0, 0, 2)); err == nil {
		t.Fatal("fired an unarmed timer")
	}
	s = run(t, m, s, act(Fire, 0, 0, 1), act(Fire, 0, 0, 1))
	if len(s.Timers(0)) != 0 || s.Node(0).(*ticker).ticks != 2 {
		t.Fatalf("after two fires: timers %v, node %v", s.Timers(0), s.Node(0))
	}
	if d := m.Describe(s, act(Deliver, 1, 0, 0)); d == "" {
		t.Fatal("no description")
	}
	// Every reachable world: Sample agrees with Actions and Quiescent.
	r := rand.New(rand.NewPCG(3, 4))
	n := explore(t, m, 1e5, func(s *World, as []checker.Action) {
		if m.Quiescent(s) != (len(as) == 0) {
			t.Fatalf("quiescent=%v with actions %v", m.Quiescent(s), as)
		}
		if a, ok := m.Sample(s, r, nil); ok && !has(as, a) {
			t.Fatalf("sampled %v not in %v", a, as)
		}
	})
	t.Logf("%d worlds", n)
}

func TestTimerCrashDisarmsAndClock(t *testing.T) {
	cfg := tickerConfig(3, 1)
	cfg.Crashes, cfg.Wakeups, cfg.Survivors, cfg.CrashBeforeWakeup = 1, []uint64{7}, []core.Rank{0}, true
	m := mustNew(t, cfg)
	s := run(t, m, m.Init()[0], act(Call, 1, 0, 0))
	if _, err := m.Apply(s, act(Crash, 0, 0, 0)); err == nil {
		t.Fatal("a survivor crashed")
	}
	s = run(t, m, s, act(Crash, 1, 0, 0))
	if len(s.Timers(1)) != 0 {
		t.Fatal("crash kept the timers")
	}
	if has(m.Actions(s, nil), act(Clock, 0, 0, 0)) {
		t.Fatal("clock enabled while calls are pending")
	}
	s = run(t, m, s, act(Call, 0, 0, 0), act(Call, 2, 0, 0), act(Fire, 0, 0, 1), act(Fire, 2, 0, 1),
		act(Deliver, 0, 2, 0), act(Detect, 0, 1, 0), act(Detect, 2, 1, 0))
	as := m.Actions(s, nil)
	if !has(as, act(Clock, 0, 0, 0)) || m.Quiescent(s) {
		t.Fatalf("clock not due: %v", as)
	}
	s = run(t, m, s, act(Clock, 0, 0, 0))
	if s.Clocks() != 1 || len(s.Timers(0)) != 1 || len(s.Timers(1)) != 0 {
		t.Fatalf("clock armed %v / %v", s.Timers(0), s.Timers(1))
	}
	s = run(t, m, s, act(Fire, 0, 0, 7), act(Fire, 2, 0, 7))
	if !m.Quiescent(s) || len(s.History(2)) != 1 {
		t.Fatalf("not quiescent after the wakeups: %v", m.Actions(s, nil))
	}
}

// TestRoundsTimersWaitForTick: with LockStepRounds a timer armed in a step
// fires only after a Tick, which is enabled only once nothing but crashes
// is; a world with a timer waiting for its round is not quiescent; each
// process ticks once per round, so n tickers that tick `limit` times go
// through exactly `limit` rounds and fewer worlds than asynchronous timers.
func TestRoundsTimersWaitForTick(t *testing.T) {
	cfg := tickerConfig(2, 2)
	cfg.Timing = LockStepRounds
	m := mustNew(t, cfg)
	s := run(t, m, m.Init()[0], act(Call, 0, 0, 0))
	if as := m.Actions(s, nil); has(as, act(Fire, 0, 0, 1)) || has(as, act(Tick, 0, 0, 0)) || m.Quiescent(s) {
		t.Fatalf("after p0's call: actions %v, quiescent %v; want p1's call only", as, m.Quiescent(s))
	}
	s = run(t, m, s, act(Call, 1, 0, 0))
	if as := m.Actions(s, nil); len(as) != 1 || as[0] != act(Tick, 0, 0, 0) || m.Quiescent(s) {
		t.Fatalf("after both calls: actions %v, quiescent %v; want just a Tick", as, m.Quiescent(s))
	}
	s = run(t, m, s, act(Tick, 0, 0, 0), act(Fire, 0, 0, 1))
	if as := m.Actions(s, nil); has(as, act(Fire, 0, 0, 1)) || !has(as, act(Fire, 1, 0, 1)) || has(as, act(Tick, 0, 0, 0)) {
		t.Fatalf("p0 re-armed in round 1: actions %v; want p1's fire and the TICK delivery, no tick", as)
	}
	ticks := 0
	n := explore(t, m, 1e5, func(s *World, as []checker.Action) {
		if m.Quiescent(s) != (len(as) == 0) {
			t.Fatalf("quiescent=%v with actions %v", m.Quiescent(s), as)
		}
		if has(as, act(Tick, 0, 0, 0)) {
			ticks++
			if len(as) != 1 {
				t.Fatalf("a tick beside other actions: %v", as)
			}
		}
	})
	async := explore(t, mustNew(t, tickerConfig(2, 2)), 1e5, func(*World, []checker.Action) {})
	if ticks != 2 || n >= async {
		t.Fatalf("%d worlds with a tick enabled (want 2: one per round), %d worlds in rounds vs %d asynchronous", ticks, n, async)
	}
	t.Logf("%d worlds in rounds, %d asynchronous", n, async)
}
