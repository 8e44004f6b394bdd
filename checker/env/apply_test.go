package env

import (
	"errors"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

func TestApplyLeavesInputUnchanged(t *testing.T) {
	for _, net := range []Network{Unordered, FIFO} {
		cfg := floodConfig(3)
		cfg.Network, cfg.Loss = net, LossOnCrash
		if net == FIFO { // two messages per channel
			cfg.N, cfg.Crashes, cfg.Fail = 2, 0, []core.Rank{1}
			cfg.Schedules = [][][]core.Input{{{in{A: 0, V: 1}, in{A: 1, V: 2}}, {in{A: 1, V: 0}}}}
		}
		m := mustNew(t, cfg)
		explore(t, m, 1e6, func(s *World, as []checker.Action) {
			sortedActions(t, as)
			before := enc(m, s)
			flight := s.InFlight()
			for _, a := range as {
				if _, err := m.Apply(s, a); err != nil {
					t.Fatal(err)
				}
				if enc(m, s) != before {
					t.Fatalf("Apply(%v) changed its input", a)
				}
			}
			if diff := gocmp.Diff(flight, s.InFlight()); diff != "" {
				t.Fatalf("in flight changed:\n%s", diff)
			}
			if diff := gocmp.Diff(as, m.Actions(s, nil)); diff != "" {
				t.Fatalf("actions changed:\n%s", diff)
			}
		})
	}
}

func TestQuiescentIffOnlyCrashes(t *testing.T) {
	cfg := floodConfig(3)
	cfg.Loss, cfg.Blocking, cfg.Crashes, cfg.Fail = LossOnCrash, true, 0, []core.Rank{1}
	cfg.Schedules = append(cfg.Schedules, [][]core.Input{{in{A: 0, V: 1}, in{A: 1, V: 1}}, {in{A: 0, V: 2}}, nil})
	m := mustNew(t, cfg)
	quiet := 0
	explore(t, m, 1e6, func(s *World, as []checker.Action) {
		onlyCrashes := true // of ranks outside Fail
		for _, a := range as {
			onlyCrashes = onlyCrashes && a.Kind == Crash && a.P != 1
		}
		if m.Quiescent(s) != onlyCrashes {
			t.Fatalf("Quiescent = %v with actions %v", m.Quiescent(s), as)
		}
		if m.Quiescent(s) {
			quiet++
			if len(s.InFlight()) != 0 {
				t.Fatalf("quiescent with messages in flight")
			}
		}
	})
	if quiet == 0 {
		t.Fatal("no quiescent state")
	}
}

func TestBlocking(t *testing.T) {
	for _, blocking := range []bool{false, true} {
		cfg := floodConfig(2)
		cfg.Blocking = blocking
		cfg.Schedules = [][][]core.Input{{{in{A: 0, V: 1}, in{A: 1, V: 1}}, nil}}
		m := mustNew(t, cfg)
		s := run(t, m, m.Init()[0], act(Call, 0, 0, 0))
		if got := has(m.Actions(s, nil), act(Call, 0, 0, 0)); got == blocking {
			t.Errorf("blocking=%v: second call enabled=%v before the return", blocking, got)
		}
		if s.Awaiting(0) != blocking {
			t.Errorf("blocking=%v: Awaiting = %v", blocking, s.Awaiting(0))
		}
		if blocking && m.Quiescent(run(t, m, s, act(Deliver, 0, 0, 0), act(Deliver, 1, 0, 0))) != true {
			t.Error("blocked call with nothing to do is not quiescent")
		}
		// p1 crashes, p0 learns it and returns.
		s = run(t, m, s, act(Deliver, 0, 0, 0), act(Crash, 1, 0, 0), act(Detect, 0, 1, 0))
		if h := s.History(0); len(h) != 2 || h[1].Kind != core.EffReturn || h[1].Value != val(1) {
			t.Fatalf("history %v", h)
		}
		if !has(m.Actions(s, nil), act(Call, 0, 0, 0)) || s.Awaiting(0) {
			t.Errorf("blocking=%v: second call not enabled after the return", blocking)
		}
	}
}

func TestStepErrorSurfaces(t *testing.T) {
	for _, v := range []int64{97, 98, 99} {
		cfg := floodConfig(2)
		cfg.Schedules = [][][]core.Input{one(v, 0)}
		m := mustNew(t, cfg)
		s := m.Init()[0]
		before := enc(m, s)
		_, err := m.Apply(s, act(Call, 0, 0, 0))
		var se *StepError
		if !errors.As(err, &se) || se.Rank != 0 || se.Event.Kind != core.EvCall || se.Action != act(Call, 0, 0, 0) {
			t.Fatalf("v=%d: error %v, want a StepError", v, err)
		}
		t.Logf("v=%d: %v", v, err)
		if enc(m, s) != before {
			t.Errorf("v=%d: failed Apply changed its input", v)
		}
		if d := m.Describe(s, act(Call, 0, 0, 0)); !strings.Contains(d, "→ error:") {
			t.Errorf("Describe = %q", d)
		}
	}
}

func TestApplyRejectsDisabled(t *testing.T) {
	m := mustNew(t, floodConfig(2))
	s := m.Init()[0]
	for _, a := range []checker.Action{
		act(0, 0, 0, 0), act(9, 0, 0, 0), act(Call, 5, 0, 0), act(Call, -1, 0, 0),
		act(Deliver, 0, 1, 0), act(Deliver, 0, 7, 0), act(Lose, 0, 1, 0),
	} {
		if _, err := m.Apply(s, a); !errors.Is(err, ErrNotEnabled) {
			t.Errorf("Apply(%v) error %v, want ErrNotEnabled", a, err)
		}
	}
	s = run(t, m, s, act(Call, 0, 0, 0))
	if _, err := m.Apply(s, act(Call, 0, 0, 0)); !errors.Is(err, ErrNotEnabled) {
		t.Errorf("call past the schedule: %v", err)
	}
}

func TestReadAPIAndDescribe(t *testing.T) {
	m := mustNew(t, floodConfig(2))
	s := m.Init()[0]
	if s.Depth() != 0 || s.LastActor() != core.NoRank || s.LastAction() != (checker.Action{}) {
		t.Error("initial last step")
	}
	for _, tc := range []struct {
		a    checker.Action
		want string
	}{
		{act(Call, 1, 0, 0), "p1 calls Flood(v=1, a=0) → sends VAL(a=0, v=1) to p0, p1"},
		{act(Deliver, 1, 1, 0), "p1 receives VAL(a=0, v=1) from p1"},
		{act(Crash, 0, 0, 0), "p0 crashes"},
		{act(Detect, 1, 0, 0), "p1 learns p0 is dead → decides 1 (a=0); returns 1 (a=0)"},
	} {
		if got := m.Describe(s, tc.a); got != tc.want {
			t.Errorf("Describe = %q, want %q", got, tc.want)
		}
		s = run(t, m, s, tc.a)
	}
	if s.Depth() != 4 || s.LastActor() != 1 || s.LastAction() != act(Detect, 1, 0, 0) || len(s.LastEffects()) != 2 {
		t.Errorf("last step: %d %v %v %v", s.Depth(), s.LastActor(), s.LastAction(), s.LastEffects())
	}
	if got := s.CallsMade(1); len(got) != 1 || len(s.PendingCalls(1)) != 0 || len(s.PendingCalls(0)) != 1 {
		t.Errorf("calls %v", got)
	}
	want := []Record{{core.EffDecide, 0, val(1)}, {core.EffReturn, 0, val(1)}}
	if diff := gocmp.Diff(want, s.History(1)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if s.Node(0) == nil || !s.Crashed(0) || s.N() != 2 || len(s.InFlight()) != 0 {
		t.Error("read API")
	}
	if got := s.String(); got != "depth=4 crashed={p0} in-flight=0" {
		t.Errorf("String = %q", got)
	}
	s2 := run(t, m, m.Init()[0], act(Call, 0, 0, 0), act(Crash, 0, 0, 0))
	if got := m.Describe(s2, act(Lose, 1, 0, 0)); !strings.HasPrefix(got, "the network loses VAL(a=0, v=0) from p0 to p1 → error") {
		t.Errorf("Describe(Lose) = %q", got)
	}
}
