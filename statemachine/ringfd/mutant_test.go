package ringfd

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// drive builds rank r of cfg and applies evs in order, returning the
// machine and the effects of the last event.
func drive(t *testing.T, cfg Config, r core.Rank, evs ...core.Event) (core.Machine, []core.Effect) {
	t.Helper()
	m, err := New(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var effs []core.Effect
	for _, ev := range evs {
		if effs, err = m.Step(ev, nil); err != nil {
			t.Fatalf("%v: %v", ev, err)
		}
	}
	return m, effs
}

func fault(ids ...core.Rank) Fault {
	var s core.RankSet
	for _, x := range ids {
		s.Add(x)
	}
	return Fault{IDs: s}
}

// effectText formats effects for comparison.
func effectText(effs []core.Effect) string { return fmt.Sprint(effs) }

// TestMutantsChangeBehaviour: for each mutant, one machine-level event
// sequence whose outcome differs from the correct protocol's in the way the
// mutant's documentation says.
func TestMutantsChangeBehaviour(t *testing.T) {
	base := Config{N: 8, Procs: 1}
	with := func(m mutant.Name) Config { c := base; c.Mutant = m; return c }
	timeout := []core.Event{core.Call(Start{}), core.Timer(TimerObserve)}
	tests := []struct {
		m     mutant.Name
		check func(t *testing.T, right, wrong core.Machine, re, we []core.Effect)
		rank  core.Rank
		evs   []core.Event
	}{
		{MutantNoMending, func(t *testing.T, right, wrong core.Machine, re, we []core.Effect) {
			if right.(*Daemon).Pred() != 2 || wrong.(*Daemon).Pred() != core.NoRank {
				t.Errorf("pred after timeout: right %v, mutant %v; want p2 and ⊥", right.(*Daemon).Pred(), wrong.(*Daemon).Pred())
			}
		}, 4, timeout},
		{MutantObserveSuccessor, func(t *testing.T, right, wrong core.Machine, re, we []core.Effect) {
			if right.(*Daemon).Pred() != 3 || wrong.(*Daemon).Pred() != 5 {
				t.Errorf("initial pred: right %v, mutant %v; want p3 and p5", right.(*Daemon).Pred(), wrong.(*Daemon).Pred())
			}
		}, 4, nil},
		{MutantMendShortTimeout, func(t *testing.T, right, wrong core.Machine, re, we []core.Effect) {
			// p2 is already reported: the correct daemon skips it and gives
			// p1 η = 2 ticks; the mutant asks p2 and gives it 1 tick.
			if !slices.Contains(re, core.Send(1, HBRequest{})) || !slices.Contains(re, setTimer(TimerObserve, 2)) {
				t.Errorf("correct mending: %v", re)
			}
			if !slices.Contains(we, core.Send(2, HBRequest{})) || !slices.Contains(we, setTimer(TimerObserve, 1)) {
				t.Errorf("mutant mending: %v", we)
			}
		}, 4, []core.Event{core.Call(Start{}), core.Receive(5, fault(2, 10)), core.Timer(TimerObserve)}},
		{MutantForwardAlways, func(t *testing.T, right, wrong core.Machine, re, we []core.Effect) {
			if len(re) != 0 || len(we) == 0 {
				t.Errorf("second copy of a known Fault: right sends %v, mutant %v; want nothing and a broadcast", re, we)
			}
		}, 0, []core.Event{core.Receive(1, fault(3, 11)), core.Receive(2, fault(3, 11))}},
		{MutantForwardNever, func(t *testing.T, right, wrong core.Machine, re, we []core.Effect) {
			if len(re) != 5+1 || len(we) != 0 || !wrong.(*Daemon).Knows(3) {
				t.Errorf("first Fault: right sends %d, mutant %d (knows p3: %v); want 6 and 0 and true", len(re), len(we), wrong.(*Daemon).Knows(3))
			}
		}, 0, []core.Event{core.Receive(1, fault(3, 11))}},
		{MutantBMGPositiveOnly, func(t *testing.T, right, wrong core.Machine, re, we []core.Effect) {
			var rt, wt []core.Rank
			for _, e := range re {
				rt = append(rt, e.To)
			}
			for _, e := range we {
				wt = append(wt, e.To)
			}
			if !slices.Equal(rt, []core.Rank{1, 7, 2, 6, 4, 8}) || !slices.Equal(wt, []core.Rank{1, 2, 4, 8}) {
				t.Errorf("broadcast from p0: right %v, mutant %v", rt, wt)
			}
		}, 0, []core.Event{core.Receive(1, fault(3, 11))}},
		{MutantHostedNotReported, func(t *testing.T, right, wrong core.Machine, re, we []core.Effect) {
			rf, wf := firstFault(re), firstFault(we)
			if rf.String() != "FAULT{p3,p11}" || wf.String() != "FAULT{p3}" {
				t.Errorf("StartPropagation(p3): right %v, mutant %v", rf, wf)
			}
		}, 4, timeout},
	}
	for _, tc := range tests {
		t.Run(string(tc.m), func(t *testing.T) {
			right, re := drive(t, base, tc.rank, tc.evs...)
			wrong, we := drive(t, with(tc.m), tc.rank, tc.evs...)
			if effectText(re) == effectText(we) && right.String() == wrong.String() {
				t.Fatalf("mutant behaves as the protocol: %v", we)
			}
			tc.check(t, right, wrong, re, we)
		})
	}
	seen := map[mutant.Name]bool{}
	for _, tc := range tests {
		seen[tc.m] = true
	}
	for _, m := range Mutants {
		if !seen[m] {
			t.Errorf("mutant %s has no machine-level test", m)
		}
	}
}

func firstFault(effs []core.Effect) Fault {
	for _, e := range effs {
		if f, ok := e.Msg.(Fault); ok {
			return f
		}
	}
	return Fault{}
}

// TestSeqWindowOrdersLikeUnboundedNumbers: with a window of W, a daemon's
// heartbeats, numbered 1 … W and wrapping, are accepted exactly when the
// unbounded numbers would be, as long as no heartbeat overtakes more than
// W/2 − 1 later ones.
func TestSeqWindowOrdersLikeUnboundedNumbers(t *testing.T) {
	const w = 8
	c, err := Normalize(Config{N: 4, SeqWindow: w})
	if err != nil {
		t.Fatal(err)
	}
	wrap := func(x uint64) uint64 { return (x-1)%w + 1 }
	for last := uint64(1); last < 40; last++ {
		for seq := last - min(last-1, w/2-1); seq <= last+w/2; seq++ {
			if got, want := c.fresher(wrap(seq), wrap(last)), seq > last; got != want {
				t.Fatalf("seq %d (%d) after %d (%d): fresher %v, want %v", seq, wrap(seq), last, wrap(last), got, want)
			}
		}
	}
	seq := uint64(1)
	for i := 1; i <= 3*w; i++ {
		if seq != wrap(uint64(i)) {
			t.Fatalf("heartbeat %d numbered %d, want %d", i, seq, wrap(uint64(i)))
		}
		seq = c.nextSeq(seq)
	}
	for _, bad := range []Config{{N: 4, SeqWindow: 1}, {N: 4, SeqWindow: 300}, {N: 4, SeqWindow: 8, Trust: Freshness}} {
		if _, err := Normalize(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
