package era

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// TestAppProgram runs the benchmark on 6 Apps over the in-test network with
// rank 1 faulty: the detecting agreement raises PROC_FAILED naming p1 at
// every survivor, one stabilization agreement succeeds, and so do the post
// ones. With Tree Rebalancing (§3, Figure 2c's stabilizing agreement
// with tree rebuilding), the agreements after the detecting one run on the
// binary tree rebuilt over the 5 survivors (0 2 3 4 5 at positions 0 … 4:
// p5 hangs from p3), without it on the mended tree (p5 under p2).
func TestAppProgram(t *testing.T) {
	for _, rebalance := range []bool{false, true} {
		t.Run(fmt.Sprintf("rebalance=%v", rebalance), func(t *testing.T) { appProgram(t, rebalance) })
	}
}

func appProgram(t *testing.T, rebalance bool) {
	const n = 6
	cfg := Config{N: n, Op: ULFM, Rebalance: rebalance}
	apps := make([]*App, n)
	for p := range apps {
		prog := &AppConfig{Warmup: 2, Post: 2, Flag: 1, Faulty: p == 1}
		a, err := NewApp(core.Rank(p), cfg, prog)
		if err != nil {
			t.Fatal(err)
		}
		apps[p] = a
	}
	type env struct {
		from, to core.Rank
		m        core.Message
	}
	var queue []env
	dead := map[core.Rank]bool{}
	step := func(p core.Rank, ev core.Event) {
		before := apps[p].AppendBinary(nil)
		c := apps[p].Clone().(*App)
		effs, err := apps[p].Step(ev, nil)
		if err != nil {
			t.Fatalf("%v step %v: %v", p, ev, err)
		}
		if !bytes.Equal(c.AppendBinary(nil), before) {
			t.Fatalf("%v: stepping the original changed its clone", p)
		}
		for _, e := range effs {
			if e.Kind == core.EffSend && !dead[e.To] {
				queue = append(queue, env{p, e.To, e.Msg})
			}
		}
	}
	for p := range apps {
		step(core.Rank(p), core.Call(AppStart{}))
	}
	for len(queue) > 0 || !dead[1] {
		if !dead[1] && apps[1].Phase() == PhaseKilled {
			dead[1] = true
			for q := range apps {
				if !dead[core.Rank(q)] {
					step(core.Rank(q), core.Suspect(1))
				}
			}
			continue
		}
		if len(queue) == 0 {
			t.Fatal("stuck before p1 was killed")
		}
		m := queue[len(queue)-1] // LIFO: an unfriendly order
		queue = queue[:len(queue)-1]
		if !dead[m.to] {
			step(m.to, core.Receive(m.from, m.m))
		}
	}
	for p, a := range apps {
		if dead[core.Rank(p)] {
			continue
		}
		if a.Phase() != PhaseDone {
			t.Fatalf("%v: phase %v: %v", core.Rank(p), a.Phase(), a)
		}
		calls := a.Calls()
		if len(calls) != 2+1+1+2 {
			t.Fatalf("%v: %d calls: %v", core.Rank(p), len(calls), a)
		}
		if d := calls[2]; d.Phase != PhaseDetect || !d.Err() || !d.Value.Failed.Has(1) {
			t.Errorf("%v: detecting agreement %+v", core.Rank(p), d)
		}
		if s := calls[3]; s.Phase != PhaseStabilize || s.Err() || !s.Contribution.Acked.Has(1) {
			t.Errorf("%v: stabilization agreement %+v", core.Rank(p), s)
		}
		for _, c := range calls[4:] {
			if c.Phase != PhasePost || c.Err() {
				t.Errorf("%v: post agreement %+v", core.Rank(p), c)
			}
		}
	}
	last := uint64(len(apps[0].Calls()) - 1)
	left, known := apps[5].node.TreeIn(last)
	parent := apps[5].node.ParentIn(last)
	if rebalance && (!known || left.String() != "{p1}" || parent != 3) || !rebalance && (!left.Empty() || parent != 2) {
		t.Errorf("rebalance=%v: last agreement's tree leaves out %v (known %v), p5's parent %v", rebalance, left, known, parent)
	}
}

// TestAppErrorsLeaveStateUnchanged: impossible events are refused.
func TestAppErrorsLeaveStateUnchanged(t *testing.T) {
	a, err := NewApp(2, Config{N: 4, Op: ULFM}, &AppConfig{Warmup: 1, Post: 1, Flag: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewApp(0, Config{N: 4}, &AppConfig{}); err == nil {
		t.Error("App over Op And accepted")
	}
	if _, err := a.Step(core.Call(AppStart{}), nil); err != nil {
		t.Fatal(err)
	}
	before := a.AppendBinary(nil)
	for _, ev := range []core.Event{
		core.Call(AppStart{}), core.Call(Contribute{A: 5, V: NewContribution(1, core.RankSet{}, core.RankSet{})}),
		core.Suspect(2), core.Suspect(9), core.Receive(2, Up{A: 0, V: Flag(1)}), core.Timer(1),
	} {
		if _, err := a.Step(ev, nil); err == nil {
			t.Errorf("%v accepted", ev)
		}
		if !bytes.Equal(a.AppendBinary(nil), before) {
			t.Fatalf("%v changed the state", ev)
		}
	}
}
