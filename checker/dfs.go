package checker

import (
	"fmt"
	"time"
)

// LivelockProperty is the property name of the violations DFS reports for
// lassos (Options.Lassos): a reachable cycle of non-quiescent states.
const LivelockProperty = "no-livelock"

// lassoViolation is the Violation of a lasso whose cycle of loop steps
// starts after start steps.
func lassoViolation(start, loop int) *Violation {
	return &Violation{
		Property: LivelockProperty,
		Kind:     "livelock",
		Message:  fmt.Sprintf("a cycle of %d steps from the state after step %d never reaches quiescence", loop, start),
		Steps:    start + loop,
	}
}

// DFS explores every state of m reachable from m.Init(), depth first, with
// one goroutine (Options.Workers is ignored), checking the selected
// properties with BFS's semantics: invariants on every distinct state,
// quiescence properties on every distinct quiescent state, transition
// properties on every generated transition. On a complete run States and
// Transitions equal BFS's; Depth is the deepest path walked, not the
// diameter.
//
// Its memory is the visited set (the same fingerprint table as BFS) plus
// the stack: one frame per state on the current path, each holding the
// state and an iterator over its enabled actions (the actions, not the
// successors: a successor is built when its action is taken). There is no
// frontier and there are no parent links.
//
// A counterexample is the DFS stack path to the violation: a real path of
// the model, replayable, but not in general a shortest one (Options.Shrink
// passes it through Shrink). Actions are taken in Model.Actions order, so
// the result is deterministic.
//
// With Options.Lassos, a step from the top of the stack to a state on the
// stack closes a cycle; when no state on it is quiescent it is reported as
// a violation of LivelockProperty, with Trace.Loop the length of the cycle
// (the first such lasso only). A step that leads back to the same state
// (same visited-set key: stuttering) is not a cycle. So that a quiescent
// state never hides a cycle of non-quiescent ones behind it, quiescent
// states found below the initial ones are not pushed at once but set aside,
// each with a copy of its path, and explored from the bottom of the stack
// once the current tree is done; Lassos therefore costs memory for those
// paths. Every reachable cycle of non-quiescent states contains a step that
// closes on the stack in this order (the search is then a depth-first
// search of the non-quiescent states), so one is reported if any exists.
//
// Options.MaxDepth leaves states at that depth unexpanded; since the first
// path to a state is the one DFS follows, a depth-bounded DFS may miss
// states a BFS of the same bound finds (Complete is false then).
//
// When an Eventually property is selected, DFS runs the explicit-graph
// search of eventually.go instead, as BFS does; Options.Lassos then adds
// its livelock check to it.
//
// Options.CheckpointDir and Options.Resume checkpoint and resume the search
// (checkpoint_dfs.go) for a model that is a Codec; a resumed search ends
// with the counts and counterexamples of an uninterrupted one.
func DFS[S any](m Model[S], opt Options) *Result {
	opt.Mode = DepthFirst
	x := newSearch(m, opt)
	if err := x.verifyResume(); err != nil {
		return x.refuse(err)
	}
	defer x.closeCheckpoints()
	stop, err := x.begin()
	if err != nil {
		return x.finish(StopError, err)
	}
	defer stop()
	if err := x.splitRefusal(); err != nil {
		return x.finish(StopError, err)
	}
	if opt.CheckpointDir != "" || opt.Resume != "" {
		x.codec = codecOf(m, opt)
	}
	if len(x.ps.ev) > 0 {
		if err := x.openCheckpoints(); err != nil {
			return x.refuse(err)
		}
		return x.graphSearch()
	}
	d := &dfs[S]{search: x, lassos: opt.Lassos, pers: setupPersistent(x)}
	if opt.Lassos || d.pers != nil {
		d.onStack = make(map[uint64]int32)
	}
	if err := x.openCheckpoints(); err != nil {
		return x.refuse(err)
	}
	return d.run()
}

// frame is a state on the DFS stack and its action iterator.
type frame[S any] struct {
	s       S
	fp      uint64
	lo, hi  int32 // the actions to take are dfs.acts[lo:hi]
	end     int32 // its enabled actions are dfs.acts[lo:end]; hi < end under POR
	next    int32 // index (from lo) of the next action to take
	quiet   int32 // quiescent frames from the bottom of the stack to this one
	proviso bool  // POR: a reduced action led back to the stack: expand fully
}

// aside is a quiescent state set aside by Lassos, with its path.
type aside[S any] struct {
	s    S
	fp   uint64
	init int
	path []Action
}

type dfs[S any] struct {
	*search[S]
	stack    []frame[S]
	acts     []Action
	buf      []byte
	onStack  map[uint64]int32 // Lassos or POR: key → stack index
	lassos   bool             // Options.Lassos
	pers     Persistent[S]    // Options.POR in effect
	tmp      []Action         // POR: scratch for persistent sets
	rest     []Action         // POR: scratch for the actions left out
	pruned   int64            // POR: enabled actions not taken
	asides   []aside[S]       // Lassos: quiescent states to expand later
	prefix   []Action         // path from init to the bottom frame
	init     int              // Init() index of the current tree
	n        int64            // distinct states
	gen      int64            // generated states not yet published
	maxDepth int
	// failed: a property failed in this search. From then on popped
	// states are not recycled: the error may refer to a state below one.
	failed bool
	open   bool // a state was left unexpanded by MaxDepth
	lasso  bool // a lasso was reported
	stop   StopReason
	err    error
}

const dfsCheckEvery = 1024 // generated states between context/memory checks

func (d *dfs[S]) run() *Result {
	x := d.search
	x.inits = x.m.Init()
	x.generated.Add(int64(len(x.inits)))
	x.lastCkpt = time.Now()
	start, resumed := 0, false
	if x.opt.Resume != "" {
		i, err := d.resume()
		if err != nil {
			return x.finish(StopError, err)
		}
		start, resumed = i, true
	}
	for i := start; i < len(x.inits); i++ {
		if !resumed || i != start { // else the tree's stack is restored
			s := x.inits[i]
			fp := x.fingerprint(&d.buf, s)
			if !d.admit(fp) {
				if d.stop != "" {
					break
				}
				continue
			}
			d.init, d.prefix = i, d.prefix[:0]
			d.visit(s, fp, true)
		}
		d.loop()
		for d.stop == "" && len(d.asides) > 0 {
			a := d.asides[len(d.asides)-1]
			d.asides = d.asides[:len(d.asides)-1]
			d.init, d.prefix = a.init, a.path
			d.push(a.s, a.fp, m0(x.m.Quiescent(a.s)))
			d.loop()
		}
		if d.stop != "" {
			break
		}
	}
	x.generated.Add(d.gen)
	d.gen = 0
	x.res.Depth = d.maxDepth
	x.res.Slept = d.pruned
	switch {
	case d.stop != "":
		return x.finish(d.stop, d.err)
	case d.open && x.opt.MaxDepth > 0:
		return x.finish(StopMaxDepth, nil)
	}
	return x.finish(StopDone, nil)
}

func m0(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// admit inserts fp in the visited set and reports whether it was new; it
// refuses (setting the stop reason) a new state beyond Options.MaxStates.
func (d *dfs[S]) admit(fp uint64) bool {
	sh := &d.visited.shards[shardOf(fp)]
	if sh.contains(fp) {
		return false
	}
	if max := d.opt.MaxStates; max > 0 && d.n >= max {
		d.stop = StopMaxStates
		return false
	}
	sh.insert(fp)
	d.n++
	return true
}

// depth is the number of steps from init to a state about to be pushed.
func (d *dfs[S]) depth() int { return len(d.prefix) + len(d.stack) }

// visit checks a newly found state (reached by the last action of the top
// frame, or an initial state when root) and pushes it, sets it aside or
// leaves it unexpanded.
func (d *dfs[S]) visit(s S, fp uint64, root bool) {
	x := d.search
	depth := d.depth()
	d.maxDepth = max(d.maxDepth, depth)
	for _, p := range x.ps.inv {
		if !x.violated[p] {
			if err := x.ps.all[p].Check(s); err != nil {
				if d.violation(p, err) {
					return
				}
			}
		}
	}
	q := (len(x.ps.quiet) > 0 || d.onStack != nil) && x.m.Quiescent(s)
	if q {
		for _, p := range x.ps.quiet {
			if !x.violated[p] {
				if err := x.ps.all[p].Check(s); err != nil {
					if d.violation(p, err) {
						return
					}
				}
			}
		}
	}
	if x.opt.MaxDepth > 0 && depth >= x.opt.MaxDepth {
		lo := d.actsLen()
		d.acts = x.m.Actions(s, d.acts[:lo])
		d.open = d.open || len(d.acts) > lo
		d.acts = d.acts[:lo]
		return
	}
	if q && !root && d.lassos {
		d.asides = append(d.asides, aside[S]{s: s, fp: fp, init: d.init, path: d.path()})
		return
	}
	d.push(s, fp, m0(q))
}

// actsLen is the end of the top frame's actions in d.acts.
func (d *dfs[S]) actsLen() int {
	if len(d.stack) == 0 {
		return 0
	}
	return int(d.stack[len(d.stack)-1].end)
}

// push makes s the top of the stack.
func (d *dfs[S]) push(s S, fp uint64, quiet int32) {
	lo := d.actsLen()
	d.acts = d.m.Actions(s, d.acts[:lo])
	hi := len(d.acts)
	if d.pers != nil {
		hi = d.reduce(s, lo)
	}
	if len(d.stack) > 0 {
		quiet += d.stack[len(d.stack)-1].quiet
	}
	if d.onStack != nil {
		d.onStack[fp] = int32(len(d.stack))
	}
	d.stack = append(d.stack, frame[S]{s: s, fp: fp, lo: int32(lo), hi: int32(hi), end: int32(len(d.acts)), quiet: quiet})
	d.queue.Store(int64(len(d.stack)))
}

// reduce narrows the actions of a state about to be pushed, d.acts[lo:], to
// the model's persistent set, moved to the front (each part keeps its
// order), and returns the end of the set in d.acts.
func (d *dfs[S]) reduce(s S, lo int) int {
	all := d.acts[lo:]
	d.tmp = d.pers.Persistent(s, all, d.tmp[:0])
	if len(d.tmp) == 0 || len(d.tmp) >= len(all) {
		return len(d.acts)
	}
	d.rest = d.rest[:0]
	j := 0
	for _, a := range all {
		if j < len(d.tmp) && a == d.tmp[j] {
			j++
		} else {
			d.rest = append(d.rest, a)
		}
	}
	if j != len(d.tmp) {
		if d.stop == "" {
			d.stop = StopError
			d.err = fmt.Errorf("checker: model bug: Persistent returned %v, not a subsequence of the enabled actions %v", d.tmp, all)
		}
		return len(d.acts)
	}
	copy(all, d.tmp)
	copy(all[len(d.tmp):], d.rest)
	d.pruned += int64(len(d.rest))
	return lo + len(d.tmp)
}

// loop runs the search until the stack is empty or it must stop.
func (d *dfs[S]) loop() {
	x := d.search
	for len(d.stack) > 0 && d.stop == "" {
		top := &d.stack[len(d.stack)-1]
		if top.next == top.hi-top.lo {
			if top.hi < top.end && top.proviso {
				d.res.Reexpanded++
				d.pruned -= int64(top.end - top.hi)
				top.hi = top.end
				continue
			}
			if d.onStack != nil {
				delete(d.onStack, top.fp)
			}
			d.acts = d.acts[:top.lo]
			done := top.s
			d.stack = d.stack[:len(d.stack)-1]
			if x.rec != nil && !d.lassos && !d.failed && len(d.stack) > 0 {
				// Expanded, and every state below it is gone: popped,
				// recycled or dropped (see Recycler).
				x.rec.Recycle(done)
			}
			continue
		}
		if d.gen >= dfsCheckEvery && d.pause() {
			return // between two steps: a checkpoint holds the search
		}
		a := d.acts[top.lo+top.next]
		top.next++
		s, tfp := top.s, top.fp
		d.gen++
		ns, err := x.m.Apply(s, a)
		if err != nil {
			d.stop = StopError
			d.err = fmt.Errorf("checker: model bug: Apply of %s after %d steps from init: %w",
				x.m.Describe(s, a), d.depth()-1, err)
			return
		}
		clean := true
		for _, p := range x.ps.trans {
			if !x.violated[p] {
				if err := x.ps.all[p].CheckStep(s, a, ns); err != nil {
					clean = false
					if d.violation(p, err) {
						return
					}
				}
			}
		}
		fp := x.fingerprint(&d.buf, ns)
		if fp == tfp {
			if top.hi < top.end {
				top.proviso = true // a cycle of one reduced step
			}
			if clean && x.rec != nil {
				x.rec.Recycle(ns)
			}
			continue // stuttering: visited, and not a cycle
		}
		if d.admit(fp) {
			d.visit(ns, fp, false)
			continue
		}
		if clean && x.rec != nil {
			x.rec.Recycle(ns) // visited: dropped
		}
		if top.hi < top.end && !top.proviso {
			if _, ok := d.onStack[fp]; ok {
				top.proviso = true
			}
		}
		if d.lassos && !d.lasso {
			if j, ok := d.onStack[fp]; ok {
				d.closeLoop(int(j))
			}
		}
	}
}

// closeLoop reports the cycle from stack[j] through the top's last action
// back to stack[j], unless a state on it is quiescent.
func (d *dfs[S]) closeLoop(j int) {
	top := len(d.stack) - 1
	below := int32(0)
	if j > 0 {
		below = d.stack[j-1].quiet
	}
	if d.stack[top].quiet != below {
		return
	}
	d.lasso = true
	path := d.path()
	loop := len(d.stack) - j
	d.report(path, lassoViolation(len(path)-loop, loop), loop)
}

// path is the actions from init to the state reached by the top frame's
// last action (or to the bottom frame when the stack is empty).
func (d *dfs[S]) path() []Action {
	p := make([]Action, 0, len(d.prefix)+len(d.stack))
	p = append(p, d.prefix...)
	for _, f := range d.stack {
		p = append(p, d.acts[f.lo+f.next-1])
	}
	return p
}

// violation records property p failing with err at the end of the current
// path and reports whether the search must stop.
func (d *dfs[S]) violation(p int, err error) bool {
	d.violated[p] = true
	d.failed = true
	path := d.path()
	d.report(path, d.ps.violation(p, err, len(path)), 0)
	return d.stop != ""
}

// report adds a counterexample and decides whether to stop.
func (d *dfs[S]) report(path []Action, v *Violation, loop int) {
	x := d.search
	steps, err := describe(x.m, x.inits[d.init], path)
	if err != nil {
		d.stop, d.err = StopError, fmt.Errorf("checker: model bug: Apply not deterministic: %w", err)
		return
	}
	x.res.Violations = append(x.res.Violations, &Trace{
		Model: x.res.Model, Init: d.init, Steps: steps, Violation: v, Loop: loop,
	})
	if !x.opt.ContinueAfterViolation || x.allViolated() && (d.onStack == nil || d.lasso) {
		d.stop = StopViolation
	}
}
