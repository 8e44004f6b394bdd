package checker

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// evGraph is the toy graph with one Eventually property: "eventually a
// good state".
type evGraph struct {
	*graph
	good map[int]bool
}

func (g *evGraph) Properties() []Property[int] {
	return []Property[int]{{Name: "reach-good", Kind: Eventually, Check: func(s int) error {
		if g.good[s] {
			return nil
		}
		return fmt.Errorf("state %d is not good", s)
	}}}
}

// searches runs BFS and DFS on m (both run the graph search).
func searches(m Model[int]) map[string]*Result {
	return map[string]*Result{"bfs": BFS(m, Options{Workers: 1}), "dfs": DFS(m, Options{})}
}

// TestEventuallyCycleBehindVisitedState: 0 and 2 fail P, 1 satisfies it;
// 0 → 1 → 2 → 0 and 0 → 2. A depth-first search from 0 takes 0 → 1 → 2
// first; the back edge 2 → 0 closes 0 1 2, which passes the P state 1, and
// the edge 0 → 2, taken later, meets 2 already finished: a search that only
// looks at the cycles its back edges close misses the ¬P cycle 0 → 2 → 0.
func TestEventuallyCycleBehindVisitedState(t *testing.T) {
	g := &evGraph{graph: &graph{E: map[int][]int{0: {1, 2}, 1: {2}, 2: {0}}}, good: map[int]bool{1: true}}
	for name, r := range searches(g) {
		if r.Err != nil || !r.Complete || r.Stop != StopViolation || len(r.Violations) != 1 {
			t.Fatalf("%s: %+v", name, r)
		}
		tr := r.Violations[0]
		if tr.Loop != 2 || tr.LoopStart() != 0 || tr.Violation.Property != "reach-good" || tr.Violation.Kind != "eventually" ||
			fmt.Sprint(stepTexts(tr)) != "[0->2 2->0]" || r.States != 3 || r.Transitions != 5 {
			t.Fatalf("%s: lasso %+v %v (states %d, generated %d)", name, tr, stepTexts(tr), r.States, r.Transitions)
		}
		_, err := Replay[int](g, tr)
		var ve *ViolationError
		if !errors.As(err, &ve) || ve.Violation != *tr.Violation {
			t.Fatalf("%s: replay %v, want %v", name, err, tr.Violation)
		}
	}
	// The same graph where 2 is good too: every cycle passes a P state.
	g.good[2] = true
	for name, r := range searches(g) {
		if r.Err != nil || !r.Complete || r.Stop != StopDone || len(r.Violations) != 0 {
			t.Fatalf("%s with 2 good: %+v", name, r)
		}
	}
}

// TestEventuallyEveryCyclePassesP: 0 → 1 → 2 → 0, 2 → 3 → 4 → 3, with 1
// and 4 good; every cycle (0 1 2, 3 4) passes a good state, and no
// quiescent state is bad: the property holds.
func TestEventuallyEveryCyclePassesP(t *testing.T) {
	g := &evGraph{graph: &graph{E: map[int][]int{0: {1}, 1: {2}, 2: {0, 3}, 3: {4}, 4: {3}}}, good: map[int]bool{1: true, 4: true}}
	for name, r := range searches(g) {
		if r.Err != nil || !r.Complete || r.Stop != StopDone || len(r.Violations) != 0 || r.States != 5 {
			t.Fatalf("%s: %+v", name, r)
		}
	}
	// Making 4 bad leaves the ¬P cycle 3 ↔ 4 (reached after 0 → 1 → 2 → 3:
	// the lasso's stem is 3 steps).
	g.good[4] = false
	for name, r := range searches(g) {
		tr := r.Violations[0]
		if len(r.Violations) != 1 || tr.Loop != 2 || tr.LoopStart() != 3 {
			t.Fatalf("%s: %+v", name, tr)
		}
	}
}

// TestEventuallyQuiescentAndSelfLoop: a bad quiescent state ends a run
// without P (an ordinary trace, Loop 0); a bad state with an edge to itself
// is a cycle of one step.
func TestEventuallyQuiescentAndSelfLoop(t *testing.T) {
	g := &evGraph{graph: &graph{E: map[int][]int{0: {1, 2}, 1: {}, 2: {3}, 3: {3}}, Q: map[int]bool{1: true}},
		good: map[int]bool{0: true}}
	for name, r := range searches(g) {
		tr := r.Violations[0]
		if len(r.Violations) != 1 || tr.Loop != 0 || len(tr.Steps) != 1 || tr.Violation.Steps != 1 {
			t.Fatalf("%s: %+v", name, tr)
		}
		var ve *ViolationError
		if _, err := Replay[int](g, tr); !errors.As(err, &ve) || ve.Violation != *tr.Violation {
			t.Fatalf("%s: replay %v", name, err)
		}
	}
	g.good[1] = true
	for name, r := range searches(g) {
		tr := r.Violations[0]
		if len(r.Violations) != 1 || tr.Loop != 1 || tr.LoopStart() != 2 || fmt.Sprint(stepTexts(tr)) != "[0->2 2->3 3->3]" {
			t.Fatalf("%s: %+v", name, tr)
		}
	}
	// Random walks see the quiescent end only.
	g.good[1] = false
	w := Walk[int](g, WalkOptions{Walks: 20, MaxSteps: 10, Workers: 1})
	if w.Violation == nil || w.Violation.Violation.Property != "reach-good" {
		t.Fatalf("walks missed the bad quiescent state: %+v", w)
	}
}

// TestEventuallyReplayRejects: a lasso whose cycle passes a good state,
// or does not close, is not a counterexample.
func TestEventuallyReplayRejects(t *testing.T) {
	g := &evGraph{graph: &graph{E: map[int][]int{0: {1, 2}, 1: {2}, 2: {0}}}, good: map[int]bool{1: true}}
	v := eventuallyViolation("reach-good", 0, 3, nil)
	through := &Trace{Steps: []Step{{Action: Action{Kind: 1}}, {Action: Action{Kind: 1}}, {Action: Action{Kind: 1}}}, Loop: 3, Violation: v}
	var ve *ViolationError
	if _, err := Replay[int](g, through); err == nil || errors.As(err, &ve) {
		t.Fatalf("a cycle through the good state 1 replayed as a violation: %v", err)
	}
	open := &Trace{Steps: []Step{{Action: Action{Kind: 2}}}, Loop: 1, Violation: v}
	if _, err := Replay[int](g, open); err == nil || errors.As(err, &ve) {
		t.Fatalf("an open lasso replayed as a violation: %v", err)
	}
}

// TestEventuallyRandomGraphs compares the verdict of the graph search with
// a brute-force one on random graphs of 7 states: the property fails iff
// some reachable bad state is quiescent or reaches itself in one or more
// steps through bad states only (a search from each state). Every lasso
// reported replays.
func TestEventuallyRandomGraphs(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	fails := 0
	for trial := range 400 {
		const n = 7
		g := &evGraph{graph: &graph{E: map[int][]int{}, Q: map[int]bool{}}, good: map[int]bool{}}
		for s := range n {
			for range r.IntN(3) {
				g.E[s] = append(g.E[s], r.IntN(n))
			}
			g.good[s] = r.IntN(3) == 0
			g.Q[s] = len(g.E[s]) == 0
		}
		reach := map[int]bool{0: true}
		for q := []int{0}; len(q) > 0; q = q[1:] {
			for _, u := range g.E[q[0]] {
				if !reach[u] {
					reach[u] = true
					q = append(q, u)
				}
			}
		}
		want := false
		for v := range reach {
			if g.good[v] {
				continue
			}
			if g.Q[v] {
				want = true
			}
			seen := map[int]bool{}
			for q := []int{v}; len(q) > 0; q = q[1:] {
				for _, u := range g.E[q[0]] {
					if u == v {
						want = true
					}
					if !g.good[u] && !seen[u] {
						seen[u] = true
						q = append(q, u)
					}
				}
			}
		}
		res := BFS[int](g, Options{Workers: 1})
		if res.Err != nil || (len(res.Violations) > 0) != want {
			t.Fatalf("trial %d: graph %v good %v: violations %d, brute force says %v", trial, g.E, g.good, len(res.Violations), want)
		}
		if want {
			fails++
			tr := res.Violations[0]
			var ve *ViolationError
			if _, err := Replay[int](g, tr); !errors.As(err, &ve) || ve.Violation != *tr.Violation {
				t.Fatalf("trial %d: lasso %+v does not replay: %v", trial, tr, err)
			}
		}
	}
	if fails < 50 || fails > 350 {
		t.Fatalf("%d of 400 random graphs violate: the test graphs are too one-sided", fails)
	}
}

// TestEventuallyLivelockToo: with Lassos the graph search also reports a
// cycle of non-quiescent states, as DFS alone does.
func TestEventuallyLivelockToo(t *testing.T) {
	g := &evGraph{graph: &graph{E: map[int][]int{0: {1}, 1: {0}}}, good: map[int]bool{0: true}}
	r := DFS[int](g, lassoOpts(Options{}))
	if len(r.Violations) != 1 || r.Violations[0].Violation.Property != LivelockProperty || r.Violations[0].Loop != 2 {
		t.Fatalf("%+v", r.Violations)
	}
}

// TestEventuallyWalkLassos: a random walk that comes back to a state with
// the property failing all along reports a lasso, which replays; on a graph
// where every cycle passes a good state, no walk does.
func TestEventuallyWalkLassos(t *testing.T) {
	g := &evGraph{graph: &graph{E: map[int][]int{0: {1, 2}, 1: {2}, 2: {0}}}, good: map[int]bool{1: true}}
	w := Walk[int](g, WalkOptions{Walks: 10, MaxSteps: 50, Workers: 1})
	tr := w.Violation
	if w.Err != nil || tr == nil || tr.Loop == 0 || tr.Violation.Property != "reach-good" {
		t.Fatalf("walks: %+v", w)
	}
	var ve *ViolationError
	if _, err := Replay[int](g, tr); !errors.As(err, &ve) || ve.Violation != *tr.Violation {
		t.Fatalf("walk lasso %+v does not replay: %v", tr, err)
	}
	g.good[2] = true
	if w := Walk[int](g, WalkOptions{Walks: 10, MaxSteps: 50, Workers: 1}); w.Violation != nil || w.Steps != 500 {
		t.Fatalf("walks with every cycle good: %+v", w)
	}
}

// timedGraph is evGraph whose action k takes k time units.
type timedGraph struct{ *evGraph }

func (timedGraph) Elapsed(a Action) int { return int(a.Kind) }

// TestEventuallyBound: 0 → 1 → 2 → 3 and 1 → 3 (actions: 0 → 1 is kind 1;
// from 1, kind 1 to 2 and kind 2 to 3; 2 → 3 kind 1), with 1 and 2 bad:
// the longest stretch in bad states is 1 → 2 → 3, 2 steps and 1+1 = 2
// time units, but 1 → 3 takes 2 time units in 1 step: Steps 2, Time 2. With
// 2 → 3 through an extra bad state 4 (2 → 4 → 3), 3 steps and 3 units.
func TestEventuallyBound(t *testing.T) {
	g := timedGraph{&evGraph{graph: &graph{E: map[int][]int{0: {1}, 1: {2, 3}, 2: {3}, 3: {3}}},
		good: map[int]bool{0: true, 3: true}}}
	for name, r := range map[string]*Result{"bfs": BFS[int](g, Options{Workers: 1}), "dfs": DFS[int](g, Options{})} {
		if len(r.Violations) != 0 || len(r.Bounds) != 1 || r.Bounds[0] != (Bound{Property: "reach-good", Steps: 2, Time: 2}) {
			t.Fatalf("%s: bounds %v violations %v", name, r.Bounds, r.Violations)
		}
	}
	g.E[2] = []int{4}
	g.E[4] = []int{3}
	r := BFS[int](g, Options{Workers: 1})
	if len(r.Bounds) != 1 || r.Bounds[0] != (Bound{Property: "reach-good", Steps: 3, Time: 3}) {
		t.Fatalf("bounds %v", r.Bounds)
	}
	// No bound for a violated property, nor after a bounded search.
	g.good[3] = false
	if r := BFS[int](g, Options{Workers: 1}); len(r.Bounds) != 0 || len(r.Violations) != 1 {
		t.Fatalf("violated: bounds %v", r.Bounds)
	}
	g.good[3] = true
	if r := BFS[int](g, Options{Workers: 1, MaxDepth: 2}); len(r.Bounds) != 0 || r.Complete {
		t.Fatalf("depth-bounded: bounds %v", r.Bounds)
	}
}
