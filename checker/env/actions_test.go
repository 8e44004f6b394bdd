package env

import (
	"cmp"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

func TestActionsCanonicalOrder(t *testing.T) {
	m := mustNew(t, floodConfig(3))
	s := m.Init()[0]
	want := []checker.Action{
		act(Crash, 0, 0, 0), act(Crash, 1, 0, 0), act(Crash, 2, 0, 0),
		act(Call, 0, 0, 0), act(Call, 1, 0, 0), act(Call, 2, 0, 0),
	}
	if diff := gocmp.Diff(want, m.Actions(s, nil)); diff != "" {
		t.Fatalf("initial actions (-want +got):\n%s", diff)
	}
	s = run(t, m, s, act(Call, 2, 0, 0), act(Call, 0, 0, 0), act(Crash, 1, 0, 0))
	want = []checker.Action{
		act(Deliver, 0, 0, 0), act(Deliver, 0, 2, 0),
		act(Deliver, 2, 0, 0), act(Deliver, 2, 2, 0),
		act(Detect, 0, 1, 0), act(Detect, 2, 1, 0),
	}
	if diff := gocmp.Diff(want, m.Actions(s, nil)); diff != "" {
		t.Fatalf("actions after calls and a crash (-want +got):\n%s", diff)
	}
}

func sortedActions(t *testing.T, as []checker.Action) {
	t.Helper()
	less := func(a, b checker.Action) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.P, b.P), cmp.Compare(a.Q, b.Q), cmp.Compare(a.I, b.I))
	}
	if !slices.IsSortedFunc(as, less) || len(slices.Compact(slices.Clone(as))) != len(as) {
		t.Fatalf("actions not strictly sorted: %v", as)
	}
}

func TestUnorderedInterleavingsEncodeEqually(t *testing.T) {
	m := mustNew(t, floodConfig(3))
	s := m.Init()[0]
	a := run(t, m, s, act(Call, 0, 0, 0), act(Call, 1, 0, 0))
	b := run(t, m, s, act(Call, 1, 0, 0), act(Call, 0, 0, 0))
	if enc(m, a) != enc(m, b) {
		t.Error("calls in either order: different encodings")
	}
	// Two messages from p0 to p2 sent in either order.
	cfg := floodConfig(3)
	cfg.Schedules = [][][]core.Input{{{in{A: 0, V: 1}, in{A: 1, V: 2}}, nil, nil}, {{in{A: 1, V: 2}, in{A: 0, V: 1}}, nil, nil}}
	m = mustNew(t, cfg)
	i0, i1 := m.Init()[0], m.Init()[1]
	a = run(t, m, i0, act(Call, 0, 0, 0), act(Call, 0, 0, 0))
	b = run(t, m, i1, act(Call, 0, 0, 0), act(Call, 0, 0, 0))
	if diff := gocmp.Diff(a.InFlight(), b.InFlight()); diff != "" {
		t.Errorf("in flight differs (-a +b):\n%s", diff)
	}
	// The schedules differ in order, so the worlds do too (CallsMade).
	if enc(m, a) == enc(m, b) {
		t.Error("different call orders encode equally")
	}
	if !has(m.Actions(a, nil), act(Deliver, 2, 0, 1)) {
		t.Error("unordered: second message not deliverable")
	}
}

func TestFIFOOffersHeadsOnly(t *testing.T) {
	cfg := floodConfig(2)
	cfg.Network = FIFO
	cfg.Schedules = [][][]core.Input{{{in{A: 0, V: 7}, in{A: 1, V: 3}}, nil}}
	m := mustNew(t, cfg)
	s := run(t, m, m.Init()[0], act(Call, 0, 0, 0), act(Call, 0, 0, 0))
	as := m.Actions(s, nil)
	if has(as, act(Deliver, 1, 0, 1)) || !has(as, act(Deliver, 1, 0, 0)) {
		t.Fatalf("FIFO actions %v", as)
	}
	if _, err := m.Apply(s, act(Deliver, 1, 0, 1)); err == nil {
		t.Error("FIFO: delivering a non-head succeeded")
	}
	if got := m.Describe(s, act(Deliver, 1, 0, 0)); got != "p1 receives VAL(a=0, v=7) from p0" {
		t.Errorf("head is %q", got)
	}
	s = run(t, m, s, act(Deliver, 1, 0, 0))
	if got := m.Describe(s, act(Deliver, 1, 0, 0)); got != "p1 receives VAL(a=1, v=3) from p0" {
		t.Errorf("next head is %q", got)
	}
	// Unordered: both are offered, in byte order.
	cfg.Network = Unordered
	m = mustNew(t, cfg)
	s = run(t, m, m.Init()[0], act(Call, 0, 0, 0), act(Call, 0, 0, 0))
	as = m.Actions(s, nil)
	if !has(as, act(Deliver, 1, 0, 1)) || !has(as, act(Deliver, 1, 0, 0)) {
		t.Fatalf("unordered actions %v", as)
	}
}

func TestIdenticalMessagesOfferedOnce(t *testing.T) {
	for _, net := range []Network{Unordered, FIFO} {
		cfg := floodConfig(2)
		cfg.Network = net
		cfg.Schedules = [][][]core.Input{{{in{V: 4, Twice: true}}, nil}}
		m := mustNew(t, cfg)
		s := run(t, m, m.Init()[0], act(Call, 0, 0, 0))
		if n := len(s.InFlight()); n != 4 {
			t.Fatalf("%v: %d in flight, want 4", net, n)
		}
		var deliveries []checker.Action
		for _, a := range m.Actions(s, nil) {
			if a.Kind == Deliver {
				deliveries = append(deliveries, a)
			}
		}
		want := []checker.Action{act(Deliver, 0, 0, 0), act(Deliver, 1, 0, 0)}
		if diff := gocmp.Diff(want, deliveries, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%v deliveries (-want +got):\n%s", net, diff)
		}
		s = run(t, m, s, act(Deliver, 1, 0, 0))
		if !has(m.Actions(s, nil), act(Deliver, 1, 0, 0)) || len(s.InFlight()) != 3 {
			t.Errorf("%v: second copy gone", net)
		}
		s = run(t, m, s, act(Deliver, 1, 0, 0))
		if has(m.Actions(s, nil), act(Deliver, 1, 0, 0)) {
			t.Errorf("%v: third copy delivered", net)
		}
	}
}

func TestCrashBudget(t *testing.T) {
	cfg := floodConfig(4)
	cfg.Fail = []core.Rank{3}
	m := mustNew(t, cfg)
	s := run(t, m, m.Init()[0], act(Crash, 0, 0, 0))
	crashes := func(s *World) (out []int32) {
		for _, a := range m.Actions(s, nil) {
			if a.Kind == Crash {
				out = append(out, a.P)
			}
		}
		return out
	}
	if got := crashes(s); !slices.Equal(got, []int32{3}) {
		t.Errorf("after budget spent, crashes %v, want only Fail rank 3", got)
	}
	if _, err := m.Apply(s, act(Crash, 1, 0, 0)); err == nil {
		t.Error("crash over budget succeeded")
	}
	if _, err := m.Apply(s, act(Crash, 0, 0, 0)); err == nil {
		t.Error("crashing a crashed process succeeded")
	}
	// The Fail rank first: the budget is untouched.
	s = run(t, m, m.Init()[0], act(Crash, 3, 0, 0))
	if got := crashes(s); !slices.Equal(got, []int32{0, 1, 2}) {
		t.Errorf("after Fail crash, crashes %v", got)
	}
	s = run(t, m, s, act(Crash, 1, 0, 0))
	if got := crashes(s); len(got) != 0 || s.NumCrashed() != 2 || !s.Crashed(1) || !s.Crashed(3) {
		t.Errorf("after both, crashes %v, crashed %v", got, s.CrashedSet())
	}
}

func TestDetect(t *testing.T) {
	m := mustNew(t, floodConfig(3))
	s := run(t, m, m.Init()[0], act(Crash, 1, 0, 0))
	var det []checker.Action
	for _, a := range m.Actions(s, nil) {
		if a.Kind == Detect {
			det = append(det, a)
		}
	}
	if diff := gocmp.Diff([]checker.Action{act(Detect, 0, 1, 0), act(Detect, 2, 1, 0)}, det); diff != "" {
		t.Fatalf("detections (-want +got):\n%s", diff)
	}
	if m.Quiescent(s) {
		t.Error("pending notifications, yet quiescent")
	}
	for _, bad := range []checker.Action{act(Detect, 0, 2, 0), act(Detect, 1, 0, 0), act(Detect, 0, 0, 0), act(Detect, 0, 9, 0)} {
		if _, err := m.Apply(s, bad); err == nil {
			t.Errorf("%v succeeded", bad)
		}
	}
	s = run(t, m, s, act(Detect, 0, 1, 0))
	if !s.Detected(0, 1) || s.Detected(2, 1) || has(m.Actions(s, nil), act(Detect, 0, 1, 0)) {
		t.Error("detection not recorded")
	}
	if _, err := m.Apply(s, act(Detect, 0, 1, 0)); err == nil {
		t.Error("second notification succeeded")
	}
	s = run(t, m, s, act(Detect, 2, 1, 0))
	for _, a := range m.Actions(s, nil) {
		if a.Kind == Detect {
			t.Errorf("%v after every notification", a)
		}
	}
}

func TestLoseOnCrash(t *testing.T) {
	for _, net := range []Network{Unordered, FIFO} {
		for _, lose := range []bool{false, true} {
			cfg := floodConfig(3)
			cfg.Network = net
			if lose {
				cfg.Loss = LossOnCrash
			}
			m := mustNew(t, cfg)
			s := run(t, m, m.Init()[0], act(Call, 0, 0, 0), act(Call, 1, 0, 0))
			for _, a := range m.Actions(s, nil) {
				if a.Kind == Lose {
					t.Errorf("%v lose=%v: %v before any crash", net, lose, a)
				}
			}
			s = run(t, m, s, act(Crash, 0, 0, 0))
			var loses []checker.Action
			for _, a := range m.Actions(s, nil) {
				if a.Kind == Lose {
					loses = append(loses, a)
				}
			}
			var want []checker.Action
			if lose {
				want = []checker.Action{act(Lose, 1, 0, 0), act(Lose, 2, 0, 0)}
			}
			if diff := gocmp.Diff(want, loses); diff != "" {
				t.Errorf("%v lose=%v (-want +got):\n%s", net, lose, diff)
			}
			if !has(m.Actions(s, nil), act(Deliver, 1, 0, 0)) {
				t.Errorf("%v lose=%v: message of crashed sender not deliverable", net, lose)
			}
			if len(s.InFlight()) != 4 { // p0's inbox was dropped at its crash
				t.Errorf("%v: in flight %v", net, s.InFlight())
			}
			if lose {
				s2 := run(t, m, s, act(Lose, 2, 0, 0))
				if len(s2.InFlight()) != 3 || s2.LastActor() != core.NoRank || s2.LastEffects() != nil {
					t.Errorf("after Lose: %v", s2.InFlight())
				}
				if _, err := m.Apply(s, act(Lose, 2, 1, 0)); err == nil {
					t.Error("losing a live sender's message succeeded")
				}
			}
		}
	}
}

func TestSendToCrashedIsDropped(t *testing.T) {
	m := mustNew(t, floodConfig(3))
	s := run(t, m, m.Init()[0], act(Crash, 2, 0, 0), act(Call, 0, 0, 0))
	for _, e := range s.InFlight() {
		if e.To == 2 {
			t.Errorf("message to crashed p2 in flight: %v", e)
		}
	}
	if len(s.InFlight()) != 2 {
		t.Errorf("in flight %v", s.InFlight())
	}
}
