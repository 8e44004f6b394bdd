package checker

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// Liveness over lassos: the Eventually properties.
//
// "Eventually P" fails on an infinite run that never reaches a state where
// P holds. In a finite state graph such a run exists exactly when a
// reachable state that fails P either ends a run (it is quiescent) or lies
// on a cycle all of whose states fail P; the run is then a lasso: a path
// to the cycle (the stem), then the cycle forever. The cycles are found
// soundly and completely by Tarjan's strongly connected components of the
// subgraph induced by the states that fail P: a cycle of ¬P states exists
// iff that subgraph has a component of two or more states, or one state
// with an edge to itself. (One depth-first search's back edges are not
// enough: a ¬P cycle may close on a state already finished, reached first
// through a P state; TestEventuallyCycleBehindVisitedState is that graph.)
//
// The search keeps the explicit graph: per distinct state its BFS parent
// link and depth, and every edge (successor index and action, 20 bytes),
// and the states not expanded yet (as encodings for a Codec model, unless
// Options.WholeStates),
// so it costs memory proportional to the transitions, which is fine at the
// bounds liveness is checked at, not at ERA's millions of states. It is
// sequential, ignores Options.Workers and POR (reductions may drop the
// edges of a cycle), and is what BFS and DFS run when an Eventually
// property is selected.
//
// With Options.Symmetry (and a Symmetric model) the graph is the quotient
// one: a node per canonical representative, an edge per action of the
// node's first-found state. Properties respect the symmetry, so a cycle of
// ¬P classes is a run that never satisfies P: lifting it from a real state
// of its first class gives a path to a symmetric state, g of it, and
// repeating the lift closes on the very state after at most the order of g
// rounds (the symmetries form a finite group). Each lifted step is the
// action of the real state whose successor has the next node's canonical
// key (it exists since Actions respects the symmetry), so the reported
// lasso is a real run. The latency bounds are those of the real graph: a
// path of classes lifts to a real path and a real path projects to one.
//
// No fairness is assumed: every cycle is a run. Under checker/env's
// BoundedDelay timing every cycle passes a Tick, which is enabled only when
// nothing is due, so a cycle cannot starve a delivery, a timer or a detector
// notification; in asynchronous models a cycle may starve an enabled action
// (a Detect never taken), and is still reported.

// gnode is one distinct state of the explicit graph.
type gnode struct {
	parent int32  // index of the BFS parent, -1 for an initial state
	init   int32  // Init() index of the tree it was found in
	act    Action // the action from the parent
	depth  int32
	first  int32 // its out-edges are graph.edges[first : first+n]
	n      int32
	quiet  bool
}

// gedge is one transition: its target's index and its action.
type gedge struct {
	to  int32
	act Action
}

type lgraph[S any] struct {
	*search[S]
	nodes []gnode
	edges []gedge
	index map[uint64]int32 // fingerprint → node
	fps   []uint64         // node → fingerprint, kept under symmetry (lift)
	fails [][]bool         // fails[k][i]: Eventually property ps.ev[k] fails at node i
	open  bool             // a state was left unexpanded by a bound
}

// graphSearch explores the reachable graph breadth first, checking the
// selected properties with BFS's semantics (Eventually properties also at
// quiescent states, as checkState does), keeping every edge, then looks for
// a lasso of each Eventually property (and, with Options.Lassos, of
// LivelockProperty: a cycle of non-quiescent states). Invariant, quiescence
// and transition violations are shortest (BFS order) and, without
// ContinueAfterViolation, stop the search at once, before the liveness
// analysis. A bounded search (MaxDepth, MaxStates) still reports the
// lassos among the states it expanded; they are real. Complete is true
// after a lasso or a quiescent violation when no bound cut the graph.
func (x *search[S]) graphSearch() *Result {
	x.res.Symmetry, x.res.Workers = x.sym, 1
	x.res.PORNote = "eventually properties need the whole state graph"
	g := &lgraph[S]{search: x, index: make(map[uint64]int32), fails: make([][]bool, len(x.ps.ev))}
	if stop, err := g.explore(); stop != "" {
		return x.finish(stop, err)
	}
	for k := range x.ps.ev {
		g.eventually(k)
		if !g.open && !x.violated[x.ps.ev[k]] {
			x.res.Bounds = append(x.res.Bounds, g.bound(k))
		}
	}
	if x.opt.Lassos {
		g.livelock()
	}
	switch {
	case len(x.res.Violations) > 0:
		r := x.finish(StopViolation, nil)
		r.Complete = !g.open // the whole graph was explored before the analysis
		return r
	case g.open && x.opt.MaxDepth > 0 && (x.opt.MaxStates == 0 || x.visited.len() < x.opt.MaxStates):
		return x.finish(StopMaxDepth, nil)
	case g.open:
		return x.finish(StopMaxStates, nil)
	}
	return x.finish(StopDone, nil)
}

// explore builds the graph. It returns a stop reason (and error) when the
// search must end without the liveness analysis.
func (g *lgraph[S]) explore() (StopReason, error) {
	x := g.search
	var buf []byte
	var acts []Action
	var zero S
	x.inits = x.m.Init()
	x.generated.Add(int64(len(x.inits)))
	// The states not expanded yet: whole (states[i] until node i is
	// expanded) or, for a Codec model, as encodings (encs[i]), decoded
	// when expanded, as BFS's compact frontier.
	var states []S
	var encs [][]byte
	codec := codecOf(x.m, x.opt)
	push := func(s S) {
		if codec != nil {
			encs = append(encs, codec.Encode(nil, s))
		} else {
			states = append(states, s)
		}
	}
	for i, s := range x.inits {
		fp := x.fingerprint(&buf, s)
		if _, ok := g.index[fp]; !ok {
			g.add(fp, gnode{parent: -1, init: int32(i)})
			push(s)
		}
	}
	ctx := x.opt.Context
	for i := 0; i < len(g.nodes); i++ {
		var s S
		if codec != nil {
			var err error
			if s, err = codec.Decode(encs[i]); err != nil {
				return StopError, fmt.Errorf("checker: model bug: Decode of a queued state: %w", err)
			}
			encs[i] = nil
		} else {
			s = states[i]
			states[i] = zero
		}
		nd := &g.nodes[i]
		x.res.Depth = max(x.res.Depth, int(nd.depth))
		if i%dfsCheckEvery == 0 {
			x.distinct.Store(int64(len(g.nodes)))
			x.queue.Store(int64(len(g.nodes) - i))
			x.depth.Store(int64(nd.depth))
			if ctx != nil && ctx.Err() != nil {
				return StopCanceled, ctx.Err()
			}
			if x.mem.check(0) {
				return StopMaxMemory, nil
			}
		}
		if g.checkState(i, s) && !x.opt.ContinueAfterViolation {
			return StopViolation, nil
		}
		acts = x.m.Actions(s, acts[:0])
		if x.opt.MaxDepth > 0 && int(nd.depth) >= x.opt.MaxDepth ||
			x.opt.MaxStates > 0 && int64(len(g.nodes)) >= x.opt.MaxStates {
			g.open = g.open || len(acts) > 0
			continue
		}
		nd.first = int32(len(g.edges))
		nd.n = int32(len(acts))
		depth := nd.depth
		for _, a := range acts {
			x.generated.Add(1)
			ns, err := x.m.Apply(s, a)
			if err != nil {
				return StopError, fmt.Errorf("checker: model bug: Apply of %s at depth %d: %w", x.m.Describe(s, a), depth, err)
			}
			violated := false
			for _, p := range x.ps.trans {
				if !x.violated[p] {
					if err := x.ps.all[p].CheckStep(s, a, ns); err != nil {
						g.report(int32(i), []Action{a}, x.ps.violation(p, err, int(depth)+1), 0)
						x.violated[p], violated = true, true
					}
				}
			}
			if violated && !x.opt.ContinueAfterViolation {
				return StopViolation, nil
			}
			fp := x.fingerprint(&buf, ns)
			j, ok := g.index[fp]
			if !ok {
				j = g.add(fp, gnode{parent: int32(i), init: g.nodes[i].init, act: a, depth: depth + 1})
				push(ns)
			}
			g.edges = append(g.edges, gedge{to: j, act: a})
		}
	}
	x.distinct.Store(int64(len(g.nodes)))
	x.queue.Store(0)
	return "", nil
}

// add makes a new node for fingerprint fp and returns its index.
func (g *lgraph[S]) add(fp uint64, n gnode) int32 {
	i := int32(len(g.nodes))
	g.index[fp] = i
	if g.sym {
		g.fps = append(g.fps, fp)
	}
	g.visited.shards[shardOf(fp)].insert(fp)
	g.nodes = append(g.nodes, n)
	for k := range g.fails {
		g.fails[k] = append(g.fails[k], false)
	}
	return i
}

// checkState checks node i's state s: invariants, and at a quiescent state
// the quiescence properties and the Eventually ones (whose failure there
// ends a run). It records, for every Eventually property, whether it
// fails at s, and reports whether a property was violated here.
func (g *lgraph[S]) checkState(i int, s S) bool {
	x := g.search
	nd := &g.nodes[i]
	nd.quiet = (len(x.ps.quiet) > 0 || len(x.ps.ev) > 0 || x.opt.Lassos) && x.m.Quiescent(s)
	found := false
	fail := func(p int, err error) {
		x.violated[p], found = true, true
		g.report(int32(i), nil, x.ps.violation(p, err, int(nd.depth)), 0)
	}
	for _, p := range x.ps.inv {
		if !x.violated[p] {
			if err := x.ps.all[p].Check(s); err != nil {
				fail(p, err)
			}
		}
	}
	if nd.quiet {
		for _, p := range x.ps.quiet {
			if !x.violated[p] {
				if err := x.ps.all[p].Check(s); err != nil {
					fail(p, err)
				}
			}
		}
	}
	for k, p := range x.ps.ev {
		err := x.ps.all[p].Check(s)
		g.fails[k][i] = err != nil
		if err != nil && nd.quiet && !x.violated[p] {
			fail(p, quiescentErr(err))
		}
	}
	return found
}

// eventually looks for a lasso of the k-th selected Eventually property,
// unless a quiescent state already violated it (at a smaller or equal
// depth than any lasso's stem: BFS order), and reports the shortest lasso
// it finds (see lasso).
func (g *lgraph[S]) eventually(k int) {
	p := g.ps.ev[k]
	if g.violated[p] {
		return
	}
	fails := g.fails[k]
	v, cycle, nodes := g.lasso(func(i int32) bool { return fails[i] })
	if cycle == nil {
		return
	}
	if cycle = g.lift(v, cycle, nodes); cycle == nil {
		return
	}
	g.violated[p] = true
	prop := g.ps.all[p]
	g.report(v, cycle, nil, len(cycle))
	tr := g.res.Violations[len(g.res.Violations)-1]
	start := tr.LoopStart()
	s, err := stateAt(g.m, tr)
	if err == nil {
		err = prop.Check(s)
	}
	tr.Violation = eventuallyViolation(prop.Name, start, len(cycle), err)
}

// eventuallyViolation is the Violation of an Eventually property whose
// lasso's cycle of loop steps starts after start steps, where the property
// fails with err.
func eventuallyViolation(name string, start, loop int, err error) *Violation {
	return &Violation{
		Property: name,
		Kind:     Eventually.String(),
		Message:  fmt.Sprintf("a cycle of %d steps from the state after step %d never satisfies it: %v", loop, start, err),
		Steps:    start + loop,
	}
}

// livelock reports a cycle of non-quiescent states as a violation of
// LivelockProperty (Options.Lassos), as DFS does.
func (g *lgraph[S]) livelock() {
	v, cycle, nodes := g.lasso(func(i int32) bool { return !g.nodes[i].quiet })
	if cycle != nil {
		cycle = g.lift(v, cycle, nodes)
	}
	if cycle != nil {
		g.report(v, cycle, lassoViolation(int(g.nodes[v].depth), len(cycle)), len(cycle))
	}
}

// lasso finds, among the cyclic strongly connected components of the
// subgraph induced by the nodes with in(i), the one whose shallowest node v
// (least depth, then least index) gives the shortest lasso: depth(v) plus
// the shortest cycle through v inside the component (a breadth-first
// search). It returns v, the cycle's actions and the node each reaches, or
// nil when there is no cycle. The lasso is short, not always the shortest.
func (g *lgraph[S]) lasso(in func(int32) bool) (int32, []Action, []int32) {
	comp := make([]int32, len(g.nodes)) // component id + 1 of nodes in a cyclic component
	best, bestV := []Action(nil), int32(-1)
	var bestNodes []int32
	id := int32(0)
	g.cyclicSCCs(in, func(c []int32) {
		id++
		v := c[0]
		for _, u := range c {
			comp[u] = id
			if nu, nv := g.nodes[u].depth, g.nodes[v].depth; nu < nv || nu == nv && u < v {
				v = u
			}
		}
		cyc, nodes := g.cycleThrough(v, func(u int32) bool { return comp[u] == id })
		if best == nil || int(g.nodes[v].depth)+len(cyc) < int(g.nodes[bestV].depth)+len(best) {
			best, bestV, bestNodes = cyc, v, nodes
		}
	})
	return bestV, best, bestNodes
}

// cycleThrough returns the actions of a shortest cycle from v back to v
// through nodes with inside(u) (v's strongly connected component), and the
// node each action reaches (the last is v).
func (g *lgraph[S]) cycleThrough(v int32, inside func(int32) bool) ([]Action, []int32) {
	type back struct {
		from int32
		act  Action
	}
	prev := map[int32]back{}
	queue := []int32{v}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		nd := g.nodes[u]
		for _, e := range g.edges[nd.first : nd.first+nd.n] {
			if !inside(e.to) {
				continue
			}
			if e.to == v {
				cyc, nodes := []Action{e.act}, []int32{v}
				for w := u; w != v; w = prev[w].from {
					cyc, nodes = append(cyc, prev[w].act), append(nodes, w)
				}
				slices.Reverse(cyc)
				slices.Reverse(nodes)
				return cyc, nodes
			}
			if _, seen := prev[e.to]; !seen {
				prev[e.to] = back{from: u, act: e.act}
				queue = append(queue, e.to)
			}
		}
	}
	panic("checker: a strongly connected component without a cycle through its node") // unreachable
}

// cyclicSCCs calls f with every strongly connected component of the
// subgraph induced by the nodes with in(i) that contains a cycle (two or
// more nodes, or one with an edge to itself): Tarjan's algorithm, with an
// explicit call stack.
func (g *lgraph[S]) cyclicSCCs(in func(int32) bool, f func([]int32)) {
	n := len(g.nodes)
	index := make([]int32, n)
	low := make([]int32, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack, comp []int32
	type call struct{ v, e int32 }
	var calls []call
	next := int32(0)
	visit := func(v int32) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		calls = append(calls, call{v: v})
	}
	for r := range int32(n) {
		if index[r] >= 0 || !in(r) {
			continue
		}
		visit(r)
		for len(calls) > 0 {
			top := &calls[len(calls)-1]
			v := top.v
			nd := g.nodes[v]
			if top.e < nd.n {
				w := g.edges[nd.first+top.e].to
				top.e++
				switch {
				case !in(w):
				case index[w] < 0:
					visit(w)
				case on[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				u := calls[len(calls)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			comp = comp[:0]
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			if len(comp) > 1 || g.selfLoop(v) {
				f(comp)
			}
		}
	}
}

// selfLoop reports whether node v has an edge to itself.
func (g *lgraph[S]) selfLoop(v int32) bool {
	nd := g.nodes[v]
	for _, e := range g.edges[nd.first : nd.first+nd.n] {
		if e.to == v {
			return true
		}
	}
	return false
}

// path is the actions from node v's initial state to v.
func (g *lgraph[S]) path(v int32) []Action {
	var p []Action
	for ; g.nodes[v].parent >= 0; v = g.nodes[v].parent {
		p = append(p, g.nodes[v].act)
	}
	slices.Reverse(p)
	return p
}

// report adds the counterexample that runs from node v's initial state to
// v, then takes more (a transition's action, or a lasso's cycle).
func (g *lgraph[S]) report(v int32, more []Action, viol *Violation, loop int) {
	x := g.search
	path := append(g.path(v), more...)
	init := int(g.nodes[v].init)
	steps, err := describe(x.m, x.inits[init], path)
	if err != nil {
		x.res.Err = fmt.Errorf("checker: model bug: Apply not deterministic: %w", err)
	}
	x.res.Violations = append(x.res.Violations, &Trace{
		Model: x.res.Model, Init: init, Steps: steps, Violation: viol, Loop: loop,
	})
}

// stateAt replays tr's first LoopStart() steps and returns the state
// reached.
func stateAt[S any](m Model[S], tr *Trace) (S, error) {
	acts := make([]Action, tr.LoopStart())
	for i := range acts {
		acts[i] = tr.Steps[i].Action
	}
	states, _, err := replayActions(m, tr.Init, acts, &propSet[S]{all: m.Properties()})
	if err != nil {
		var zero S
		return zero, err
	}
	return states[len(states)-1], nil
}

// walkLassos spots, along one random walk, a lasso of an Eventually
// property: the walk comes back to a state it visited (same encoding,
// compared by 64-bit fingerprint; Replay checks the encodings) and the
// property failed at every state since that visit. Random walks thus find
// liveness violations in models too large for the graph search; they
// prove nothing when they find none. Each step costs one fingerprint and
// one Check per Eventually property, and the walk's fingerprints are kept.
type walkLassos[S any] struct {
	m      Model[S]
	ps     *propSet[S]
	seen   map[uint64]int // fingerprint → the last step index it was seen at
	lastOK []int          // per Eventually property: the last step index it held at
	buf    []byte
	// the lasso found: its violation, and the step index its cycle starts at
	start     int
	violation *Violation
}

// reset prepares for a new walk of m checking ps.
func (l *walkLassos[S]) reset(m Model[S], ps *propSet[S]) {
	l.m, l.ps = m, ps
	if len(ps.ev) == 0 {
		return
	}
	if l.seen == nil {
		l.seen = make(map[uint64]int)
		l.lastOK = make([]int, len(ps.ev))
	}
	clear(l.seen)
	for k := range l.lastOK {
		l.lastOK[k] = -1
	}
	l.violation = nil
}

// step records the state s reached after i steps and reports whether it
// closes a lasso of a property (then l.violation and l.start say which).
func (l *walkLassos[S]) step(i int, s S) bool {
	if len(l.ps.ev) == 0 {
		return false
	}
	var fp uint64
	if f, ok := l.m.(Fingerprinter[S]); ok {
		fp = f.Fingerprint(s)
	} else {
		l.buf = l.m.Encode(l.buf[:0], s)
		fp = core.Fingerprint(l.buf)
	}
	j, again := l.seen[fp]
	l.seen[fp] = i
	for k, p := range l.ps.ev {
		prop := l.ps.all[p]
		err := prop.Check(s)
		if err == nil {
			l.lastOK[k] = i
			continue
		}
		if again && j > l.lastOK[k] {
			l.start, l.violation = j, eventuallyViolation(prop.Name, j, i-j, err)
			return true
		}
	}
	return false
}

// Timed is an optional interface of a Model whose actions take time:
// Elapsed(a) is the time action a takes, in the model's unit (checker/env
// under BoundedDelay: one tick for a Tick, zero for every other action).
// The bounds of Eventually properties (Bound.Time) are measured with it.
type Timed interface {
	Elapsed(a Action) int
}

// Bound says how long an Eventually property that holds can take: over
// every reachable run and every stretch of it spent in states that fail
// the property, up to the step that reaches a state where it holds (there
// always is one: the property holds), the most steps and the most time
// (Timed; 0 otherwise). For "every crash is eventually suspected" the
// stretch starts at a crash, so Time is the worst-case detection latency.
// The two maxima may come from different runs.
type Bound struct {
	Property string `json:"property"`
	Steps    int    `json:"steps"`
	Time     int    `json:"time"`
}

// String is "completeness: at most 9 steps, 6 time units in ¬P".
func (b Bound) String() string {
	return fmt.Sprintf("%s: at most %d steps, %d time units in ¬P", b.Property, b.Steps, b.Time)
}

// bound computes the Bound of the k-th Eventually property, which holds on
// the complete graph: its ¬P states form a DAG (no ¬P cycle, no ¬P
// quiescent state), and a longest path through them, plus the edge that
// leaves them, is found by memoized depth-first search in post-order.
func (g *lgraph[S]) bound(k int) Bound {
	fails := g.fails[k]
	timed, hasTime := g.m.(Timed)
	steps := make([]int32, len(g.nodes)) // longest, from the node, to a P state
	times := make([]int64, len(g.nodes))
	done := make([]bool, len(g.nodes))
	type call struct{ v, e int32 }
	var calls []call
	b := Bound{Property: g.ps.all[g.ps.ev[k]].Name}
	for r := range int32(len(g.nodes)) {
		if !fails[r] || done[r] {
			continue
		}
		calls = append(calls[:0], call{v: r})
		for len(calls) > 0 {
			top := &calls[len(calls)-1]
			nd := g.nodes[top.v]
			if top.e < nd.n {
				w := g.edges[nd.first+top.e].to
				top.e++
				if fails[w] && !done[w] {
					calls = append(calls, call{v: w})
				}
				continue
			}
			v := top.v
			calls = calls[:len(calls)-1]
			for _, e := range g.edges[nd.first : nd.first+nd.n] {
				st, tm := int32(1), int64(0)
				if hasTime {
					tm = int64(timed.Elapsed(e.act))
				}
				if fails[e.to] {
					st += steps[e.to]
					tm += times[e.to]
				}
				steps[v], times[v] = max(steps[v], st), max(times[v], tm)
			}
			done[v] = true
			b.Steps, b.Time = max(b.Steps, int(steps[v])), max(b.Time, int(times[v]))
		}
	}
	return b
}

// maxLiftRounds bounds the rounds of a lifted cycle (the order of the
// symmetry that the quotient cycle ends on).
const maxLiftRounds = 1 << 12

// lift turns a cycle of the graph through node v (actions, and the node
// each reaches) into a cycle of real states from v's real state: without
// symmetry the cycle itself; under symmetry the lifted rounds described in
// the comment at the top of this file. On a model bug (no action reaches
// the next class, or no closing within maxLiftRounds) it sets the result's
// error and returns nil.
func (g *lgraph[S]) lift(v int32, cycle []Action, nodes []int32) []Action {
	x := g.search
	if !x.sym {
		return cycle
	}
	states, _, err := replayActions(x.m, int(g.nodes[v].init), g.path(v), &propSet[S]{})
	if err != nil {
		x.res.Err = fmt.Errorf("checker: model bug: replaying a lasso's stem: %w", err)
		return nil
	}
	start := states[len(states)-1]
	want := string(x.m.Encode(nil, start))
	var buf []byte
	var acts []Action
	var out []Action
	cur := start
	for range maxLiftRounds {
		for _, t := range nodes {
			found := false
			acts = x.m.Actions(cur, acts[:0])
			for _, a := range acts {
				ns, err := x.m.Apply(cur, a)
				if err != nil {
					continue
				}
				if x.fingerprint(&buf, ns) == g.fps[t] {
					out, cur, found = append(out, a), ns, true
					break
				}
			}
			if !found {
				x.res.Err = fmt.Errorf("checker: model bug: no action of a lifted lasso leads to its next class (Actions or Apply does not respect the symmetry)")
				return nil
			}
		}
		if string(x.m.Encode(nil, cur)) == want {
			return out
		}
	}
	x.res.Err = fmt.Errorf("checker: model bug: a lifted lasso did not close within %d rounds", maxLiftRounds)
	return nil
}
