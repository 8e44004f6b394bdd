package hyperquicksort

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	hq "github.com/ftkernel/ftkernel/statemachine/hyperquicksort"
)

// gatedRun drives NetModel as ftcheck run's gate does: the processes of
// killed[k] crash at the barrier before round k (k = 0: before the first
// round), every survivor steps their reports, then every live process is
// called and messages are delivered (the first enabled each time) until
// none is left. Every property is checked after every step. It returns
// the store a live process returned at the last barrier, or the first
// property violated with the number of steps taken. It records the steps
// in *trace when trace is not nil.
func gatedRun(t *testing.T, em *env.Model, n int, killed []core.RankSet, trace ...*[]checker.Step) (hq.Lists, error) {
	t.Helper()
	w := em.Init()[0]
	var dead core.RankSet
	steps := 0
	var bad error
	do := func(a checker.Action) {
		t.Helper()
		if bad != nil {
			return
		}
		next, err := em.Apply(w, a)
		if err != nil {
			t.Fatalf("%v: %v", a, err)
		}
		w = next
		steps++
		for _, tr := range trace {
			*tr = append(*tr, checker.Step{Action: a})
		}
		for _, p := range em.Properties() {
			if err := p.Check(w); err != nil && bad == nil {
				bad = fmt.Errorf("step %d: %s: %w", steps, p.Name, err)
			}
		}
	}
	for _, set := range killed {
		set.Each(func(q core.Rank) {
			if !dead.Has(q) {
				do(checker.Action{Kind: env.Crash, P: int32(q)})
			}
		})
		dead = dead.Union(set)
		for p := range core.Rank(n) {
			dead.Each(func(q core.Rank) {
				a := checker.Action{Kind: env.Detect, P: int32(p), Q: int32(q)}
				if !dead.Has(p) && slices.Contains(em.Actions(w, nil), a) {
					do(a)
				}
			})
		}
		for p := range core.Rank(n) {
			if !dead.Has(p) {
				do(checker.Action{Kind: env.Call, P: int32(p)})
			}
		}
		for bad == nil {
			i := slices.IndexFunc(em.Actions(w, nil), func(a checker.Action) bool { return a.Kind == env.Deliver })
			if i < 0 {
				break
			}
			do(em.Actions(w, nil)[i])
		}
	}
	if bad != nil {
		return nil, bad
	}
	for p := range core.Rank(n) {
		if nd := w.Node(p).(*hq.Node); !dead.Has(p) {
			if nd.Barriers() != len(killed) {
				t.Fatalf("p%d passed %d barriers of %d", p, nd.Barriers(), len(killed))
			}
			return nd.Store(), nil
		}
	}
	t.Fatal("no live process")
	return nil, nil
}

// TestNetModelMatchesCheckedModel: over 4 and 8 processes, with the
// processes killed before each sorting round drawn from a few schedules
// (none, one before the first round, one at each barrier, all but one),
// the network model run as the gate runs it ends with the lists by
// virtual rank that the checked model (Run, its non-recommended sets the
// processes killed so far) ends with, and every property holds on the
// way.
func TestNetModelMatchesCheckedModel(t *testing.T) {
	set := func(rs ...core.Rank) core.RankSet {
		var s core.RankSet
		for _, r := range rs {
			s.Add(r)
		}
		return s
	}
	for _, tc := range []struct {
		n      int
		killed []core.RankSet
	}{
		{4, []core.RankSet{{}, {}}},
		{4, []core.RankSet{set(2), {}}},
		{4, []core.RankSet{{}, set(0)}},
		{4, []core.RankSet{set(1, 2, 3), {}}},
		{8, []core.RankSet{{}, {}, {}}},
		{8, []core.RankSet{set(4), {}, {}}},
		{8, []core.RankSet{{}, set(3), set(6)}},
		{8, []core.RankSet{set(0), set(5), set(1, 2, 3, 4, 6)}},
	} {
		t.Run(fmt.Sprint(tc.n, tc.killed), func(t *testing.T) {
			p := Params{N: tc.n, MaxNonRec: tc.n - 1, Values: 2, Inputs: 2}
			em, err := NetModel(p)
			if err != nil {
				t.Fatal(err)
			}
			var steps []checker.Step
			got, err := gatedRun(t, em, tc.n, tc.killed, &steps)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ReplayOnChecked(p, steps); err != nil {
				t.Errorf("the run replayed on check's model: %v", err)
			}
			var sched []core.RankSet
			var so core.RankSet
			for _, s := range tc.killed {
				so = so.Union(s)
				sched = append(sched, so.Clone())
			}
			p.Schedule = sched
			m, err := NewModel(p)
			if err != nil {
				t.Fatal(err)
			}
			w, err := Run(m, p.Inputs-1)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := m.Output(w)
			if hq.FormatLists(got) != hq.FormatLists(want) {
				t.Errorf("network model: %s\nchecked model: %s", hq.FormatLists(got), hq.FormatLists(want))
			}
		})
	}
}

// TestNetModelMutantCaught: skip-store with p3 dead before the first
// round (n = 8): p2 plays v3 from its own empty copy and never saves it,
// so the store at the last barrier keeps p3's input share beside the
// values that moved on. The network model run as the gate runs it
// (first enabled delivery each time) fails sorted after its 185th step,
// when the first process passes the last barrier.
func TestNetModelMutantCaught(t *testing.T) {
	em, err := NetModel(Params{N: 8, MaxNonRec: 1, Values: 2, Inputs: 2, Mutant: hq.MutantSkipStore})
	if err != nil {
		t.Fatal(err)
	}
	var three core.RankSet
	three.Add(3)
	_, err = gatedRun(t, em, 8, []core.RankSet{three, {}, {}})
	if err == nil || !strings.HasPrefix(err.Error(), "step 185: sorted:") {
		t.Errorf("got %v, want sorted violated at step 185", err)
	}
}

// TestNetModelSameViewNeedsTheGate: without the gate, a process may begin
// a round before it steps a death another process already stepped. With
// p3 crashed and only p0 told of it before every process is called
// (n = 4), p0 begins round 0 without p3 and p1 with it: same-view fails
// at the second call, the 3rd step.
func TestNetModelSameViewNeedsTheGate(t *testing.T) {
	em, err := NetModel(Params{N: 4, MaxNonRec: 1, Values: 2, Inputs: 2})
	if err != nil {
		t.Fatal(err)
	}
	w := em.Init()[0]
	for i, a := range []checker.Action{{Kind: env.Crash, P: 3}, {Kind: env.Detect, P: 0, Q: 3}, {Kind: env.Call, P: 0}, {Kind: env.Call, P: 1}} {
		if w, err = em.Apply(w, a); err != nil {
			t.Fatal(err)
		}
		var failed []string
		for _, p := range em.Properties() {
			if p.Check(w) != nil {
				failed = append(failed, p.Name)
			}
		}
		if want := map[bool][]string{true: {"same-view"}}[i == 3]; !slices.Equal(failed, want) {
			t.Errorf("after step %d (%v): failed %v, want %v", i+1, a, failed, want)
		}
	}
}

// TestReplayOnCheckedCatchesSkipStore: the network model's run of
// skip-store (p3 dead before the first round, n = 8), up to the step at
// which its sorted fails, replayed on check's model: every step maps, and
// the model's permutation fails at the end, after its 63rd step: its
// output (each virtual rank's list as its last player holds it) lacks p3's
// share [6, 8], which p2 never read.
func TestReplayOnCheckedCatchesSkipStore(t *testing.T) {
	p := Params{N: 8, MaxNonRec: 1, Values: 2, Inputs: 2, Mutant: hq.MutantSkipStore}
	em, err := NetModel(p)
	if err != nil {
		t.Fatal(err)
	}
	var three core.RankSet
	three.Add(3)
	var steps []checker.Step
	gatedRun(t, em, 8, []core.RankSet{three, {}, {}}, &steps)
	n, err := ReplayOnChecked(p, steps)
	if err == nil || n != 63 || !strings.Contains(err.Error(), "permutation") {
		t.Errorf("got %d steps, %v; want permutation failing after 63 steps", n, err)
	}
}
