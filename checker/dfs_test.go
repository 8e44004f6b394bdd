package checker

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// graph is a toy model given by its edges: state s has actions 1..len(E[s])
// (kind k goes to E[s][k-1]); Q marks quiescent states.
type graph struct {
	E map[int][]int
	Q map[int]bool
}

func (g *graph) Name() string { return "graph" }
func (g *graph) Init() []int  { return []int{0} }
func (g *graph) Actions(s int, buf []Action) []Action {
	for k := range g.E[s] {
		buf = append(buf, Action{Kind: uint8(k + 1)})
	}
	return buf
}
func (g *graph) Apply(s int, a Action) (int, error) {
	if a.Kind == 0 || int(a.Kind) > len(g.E[s]) {
		return s, errors.New("not enabled")
	}
	return g.E[s][a.Kind-1], nil
}
func (g *graph) Encode(b []byte, s int) []byte   { return append(b, byte(s)) }
func (g *graph) Quiescent(s int) bool            { return g.Q[s] }
func (g *graph) Describe(s int, a Action) string { return fmt.Sprintf("%d->%d", s, g.E[s][a.Kind-1]) }
func (g *graph) Properties() []Property[int]     { return nil }
func lassoOpts(o Options) Options                { o.Lassos = true; return o }
func stepTexts(tr *Trace) (out []string) {
	for _, s := range tr.Steps {
		out = append(out, s.Text)
	}
	return out
}

func TestDFSCountsGrid(t *testing.T) {
	r := DFS[pt](&grid{N: 4}, Options{})
	if r.Err != nil || r.States != 25 || r.Transitions != 41 || !r.Complete || r.Stop != StopDone || r.Mode != DepthFirst {
		t.Fatalf("states=%d transitions=%d complete=%v stop=%s err=%v mode=%s", r.States, r.Transitions, r.Complete, r.Stop, r.Err, r.Mode)
	}
	// The first path DFS walks is incX×4 then incY×4.
	if r.Depth != 8 {
		t.Fatalf("depth %d", r.Depth)
	}
	if r := BFS[pt](&grid{N: 4}, Options{Lassos: true}); r.Err == nil || r.Stop != StopError {
		t.Fatalf("BFS accepted Lassos: %v", r.Stop)
	}
}

func TestDFSInvariant(t *testing.T) {
	g := &grid{N: 6, props: []Property[pt]{sumBelow(5), xStepBelow(7)}}
	r := DFS[pt](g, Options{})
	if r.Stop != StopViolation || len(r.Violations) != 1 {
		t.Fatalf("stop=%s violations=%d", r.Stop, len(r.Violations))
	}
	tr := r.Violations[0]
	want := &Violation{Property: "SumBelow", Kind: "invariant", Message: "x+y=5", Steps: 5}
	if !reflect.DeepEqual(tr.Violation, want) || !reflect.DeepEqual(actionKinds(tr), []uint8{1, 1, 1, 1, 1}) {
		t.Fatalf("trace %v", tr)
	}
	if _, err := Replay[pt](g, tr); !errors.As(err, new(*ViolationError)) {
		t.Fatalf("replay: %v", err)
	}
	// A transition property: the stack path to the first step reaching x=3.
	g = &grid{N: 6, props: []Property[pt]{xStepBelow(3)}}
	r = DFS[pt](g, Options{})
	if r.Stop != StopViolation || r.Violations[0].Violation.Steps != 3 {
		t.Fatalf("transition: %v", r.Violations)
	}
}

// detour: from 0 the search wanders (incY first), so DFS's stack path to
// x+y = 3 at x = 3 is long; Shrink cuts it to the shortest.
type detour struct{ *grid }

func (d detour) Actions(s pt, buf []Action) []Action {
	if s.Y < d.N && s.X == 0 {
		buf = append(buf, Action{Kind: incY})
	}
	if s.X < d.N {
		buf = append(buf, Action{Kind: incX})
	}
	return buf
}

func TestDFSShrink(t *testing.T) {
	xIs3 := Property[pt]{Name: "XBelow3", Kind: Invariant, Check: func(s pt) error {
		if s.X >= 3 {
			return errors.New("x=3")
		}
		return nil
	}}
	m := detour{&grid{N: 5, props: []Property[pt]{xIs3}}}
	long := DFS[pt](m, Options{})
	short := DFS[pt](m, Options{Shrink: true})
	if n := len(long.Violations[0].Steps); n != 8 {
		t.Fatalf("unshrunk: %d steps %q", n, stepTexts(long.Violations[0]))
	}
	if n := len(short.Violations[0].Steps); n != 3 {
		t.Fatalf("shrunk: %d steps %q", n, stepTexts(short.Violations[0]))
	}
}

func TestDFSLasso(t *testing.T) {
	// 0 → 1 → 2 → 3 → 1 never quiesces; 0 → 9 does.
	g := &graph{E: map[int][]int{0: {9, 1}, 1: {2}, 2: {3}, 3: {1}}, Q: map[int]bool{9: true}}
	r := DFS[int](g, lassoOpts(Options{}))
	if r.Stop != StopViolation || len(r.Violations) != 1 {
		t.Fatalf("stop=%s violations=%v", r.Stop, r.Violations)
	}
	tr := r.Violations[0]
	if tr.Loop != 3 || tr.LoopStart() != 1 || tr.Violation.Property != LivelockProperty ||
		!reflect.DeepEqual(stepTexts(tr), []string{"0->1", "1->2", "2->3", "3->1"}) {
		t.Fatalf("lasso %+v\n%s", tr, tr)
	}
	states, err := Replay[int](g, tr)
	var ve *ViolationError
	if !errors.As(err, &ve) || ve.Violation != *tr.Violation || !reflect.DeepEqual(states, []int{0, 1, 2, 3, 1}) {
		t.Fatalf("replay: %v %v", states, err)
	}
	if !strings.Contains(tr.String(), "-- loop --") {
		t.Fatalf("format:\n%s", tr)
	}
	// JSON round trip keeps the loop; an ordinary trace has no "loop" key.
	b, _ := json.Marshal(tr)
	back, err := ParseTrace(b)
	if err != nil || back.Loop != 3 {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	plain, _ := json.Marshal(&Trace{Model: "m"})
	if strings.Contains(string(plain), "loop") {
		t.Fatalf("ordinary trace JSON %s", plain)
	}
	// A broken lasso is rejected by Replay and left alone by Shrink.
	bad := *tr
	bad.Loop = 2
	if _, err := Replay[int](g, &bad); err == nil || errors.As(err, &ve) {
		t.Fatalf("broken lasso replayed: %v", err)
	}
	if Shrink[int](g, tr) != tr {
		t.Fatal("Shrink changed a lasso")
	}
	// Without Lassos the same graph is explored without complaint.
	if r := DFS[int](g, Options{}); r.Stop != StopDone || r.States != 5 || r.Transitions != 6 {
		t.Fatalf("no lassos: stop=%s states=%d transitions=%d", r.Stop, r.States, r.Transitions)
	}
}

func TestDFSNoLasso(t *testing.T) {
	for name, m := range map[string]*graph{
		// A diamond: acyclic.
		"acyclic": {E: map[int][]int{0: {1, 2}, 1: {3}, 2: {3}}, Q: map[int]bool{3: true}},
		// The cycle 1 → 2 → 1 passes through the quiescent 2.
		"quiescent-on-cycle": {E: map[int][]int{0: {1}, 1: {2}, 2: {1}}, Q: map[int]bool{2: true}},
		// 1 stutters (a self-loop is not a livelock).
		"stutter": {E: map[int][]int{0: {1}, 1: {1, 2}}, Q: map[int]bool{2: true}},
	} {
		r := DFS[int](m, lassoOpts(Options{}))
		if r.Stop != StopDone || len(r.Violations) != 0 {
			t.Errorf("%s: stop=%s violations=%v", name, r.Stop, r.Violations)
		}
	}
	// The grid is acyclic too.
	if r := DFS[pt](&grid{N: 5}, lassoOpts(Options{})); r.Stop != StopDone || r.States != 36 {
		t.Fatalf("grid: %s %d", r.Stop, r.States)
	}
}

// TestDFSLassoBehindQuiescent: 0 → 1 → 2 and 0 → 2 → 0, where 1 is
// quiescent. A plain DFS reaches 2 through 1 first, so its only step back
// to the stack (2 → 0) closes a cycle through the quiescent 1; setting 1
// aside makes the search find 0 → 2 → 0.
func TestDFSLassoBehindQuiescent(t *testing.T) {
	g := &graph{E: map[int][]int{0: {1, 2}, 1: {2}, 2: {0}}, Q: map[int]bool{1: true}}
	r := DFS[int](g, lassoOpts(Options{}))
	if len(r.Violations) != 1 || r.Violations[0].Loop != 2 ||
		!reflect.DeepEqual(stepTexts(r.Violations[0]), []string{"0->2", "2->0"}) {
		t.Fatalf("stop=%s violations=%v", r.Stop, r.Violations)
	}
	// Setting quiescent states aside changes the order, not the counts.
	g = &graph{E: map[int][]int{0: {1, 3}, 1: {2}, 2: {1, 4}, 3: {2}}, Q: map[int]bool{2: true, 4: true}}
	a := DFS[int](g, Options{})
	b := DFS[int](g, lassoOpts(Options{}))
	if a.States != 5 || b.States != 5 || a.Transitions != 7 || b.Transitions != 7 || !b.Complete || len(b.Violations) != 0 {
		t.Fatalf("counts %d/%d vs %d/%d, violations %v", a.States, a.Transitions, b.States, b.Transitions, b.Violations)
	}
}

func TestDFSMaxStatesAndDepth(t *testing.T) {
	r := DFS[pt](&grid{N: 4}, Options{MaxStates: 10})
	if r.Stop != StopMaxStates || r.Complete || r.States != 10 {
		t.Fatalf("max states: stop=%s states=%d", r.Stop, r.States)
	}
	r = DFS[pt](&grid{N: 4}, Options{MaxStates: 25})
	if r.Stop != StopDone || r.States != 25 {
		t.Fatalf("max states = all: stop=%s states=%d", r.Stop, r.States)
	}
	r = DFS[pt](&grid{N: 4}, Options{MaxDepth: 3})
	if r.Stop != StopMaxDepth || r.Complete || r.Depth != 3 {
		t.Fatalf("max depth: stop=%s depth=%d", r.Stop, r.Depth)
	}
}

func TestMaxMemoryTiny(t *testing.T) {
	for _, mode := range []Mode{BreadthFirst, DepthFirst} {
		r := Search[pt](&grid{N: 200}, Options{Mode: mode, MaxMemory: 1})
		if r.Stop != StopMaxMemory || r.Complete || r.Err != nil || r.States == 0 || r.HeapBytes == 0 {
			t.Fatalf("%s: stop=%s complete=%v err=%v states=%d heap=%d", mode, r.Stop, r.Complete, r.Err, r.States, r.HeapBytes)
		}
	}
}
