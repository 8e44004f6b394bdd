package checker

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Observer is an optional interface of a Model: when implemented, Walk
// reports every step and the end of every walk to it, so that a simulation
// can measure what it needs (messages, rounds, depth) without the checker
// knowing the protocol. Walks run in parallel: calls for different walk
// indices may be concurrent; calls for one walk come in order. ObserveEnd is
// called with the final state (also after a violation), unless the walk
// failed with an error.
type Observer[S any] interface {
	ObserveStep(walk int, prev S, a Action, next S)
	ObserveEnd(walk int, final S, st WalkStat)
}

// Sampler is an optional interface of a Model: when implemented, random
// walks call Sample to choose the next action instead of picking uniformly
// among Actions (environments use it to weight crashes). Sample must return
// one of Actions(s), or false when none is enabled; buf is scratch space it
// may use for Actions.
type Sampler[S any] interface {
	Sample(s S, r *rand.Rand, buf []Action) (Action, bool)
}

// WalkOptions configure Walk. The zero value is one walk of up to 1000
// steps from seed 0, with one worker per CPU.
type WalkOptions struct {
	// Walks is the number of walks; 0 means 1.
	Walks int
	// MaxSteps bounds each walk; 0 means 1000.
	MaxSteps int
	// Seed determines every walk: walk i uses WalkSeed(Seed, i).
	Seed uint64
	// Workers run walks in parallel; 0 means runtime.NumCPU(). Results do
	// not depend on it.
	Workers int
	// Properties selects the properties as in Options.Properties.
	Properties []string
	// Context, when non-nil, cancels the walks (noticed between steps):
	// Walk then returns the walks finished before it with
	// WalkResult.Canceled set.
	Context context.Context
	// Progress, when non-nil, is called every ProgressEvery (0: 2 s) from
	// another goroutine while the walks run.
	Progress      func(WalkProgress)
	ProgressEvery time.Duration
	// Owns, when non-nil, selects the walks to run: walk i runs if and
	// only if Owns(i) (a shard of a campaign, K of N, owns i mod N = K).
	// Every selected walk runs, even after another violated a property,
	// so that the shards of a campaign together run each walk exactly as
	// the unsharded campaign would. The result then covers all Walks
	// indices: PerWalk[i] is zero for a walk not selected, and Violation
	// is that of the lowest-numbered selected walk that violated.
	Owns func(i int) bool
}

// WalkProgress is what Walk reports while it runs.
type WalkProgress struct {
	Done    int     // walks finished
	Walks   int     // walks asked for (those WalkOptions.Owns selects)
	Steps   int64   // actions taken by the finished walks
	Seconds float64 // since Walk started
}

// WalkStat is what one walk did.
type WalkStat struct {
	Steps     int  // actions taken
	Quiescent bool // ended in a quiescent state
	Deadlock  bool // ended with no action enabled and not quiescent
	Violated  bool // ended at a property violation
}

// WalkResult is the outcome of Walk.
type WalkResult struct {
	Model string
	// Walks is the number of walks reported in PerWalk: all of them, or,
	// after a violation, those up to and including the violating one.
	Walks int
	// Steps is the total number of actions taken by those walks.
	Steps       int64
	Seconds     float64
	StepsPerSec float64
	PerWalk     []WalkStat
	// Violation is the trace of the lowest-numbered walk that violated a
	// property, with Seed set to that walk's seed; nil if none did.
	Violation *Trace
	// ViolationWalk is the index of that walk, or -1.
	ViolationWalk int
	// Err is a model bug (an Apply error, an unknown property).
	Err error
	// Canceled reports that WalkOptions.Context was canceled before the
	// walks were done: Walks, Steps and PerWalk then cover the walks
	// 0..Walks-1, all finished, and Err is nil.
	Canceled bool
}

// WalkSeed is the seed of walk i of a run with seed seed: a SplitMix64 mix
// of both, so neighbouring walks get unrelated streams.
func WalkSeed(seed uint64, i int) uint64 {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// newWalkRand is the PCG generator of a walk seed.
func newWalkRand(ws uint64) *rand.Rand {
	return rand.New(rand.NewPCG(ws, ws^0xda942042e4dd58b5))
}

// Walk runs opt.Walks seeded random walks of m. Each starts from an initial
// state chosen uniformly, then repeatedly picks an action (uniformly among
// m.Actions, or by m's Sampler) until the state is quiescent, no action is
// enabled, MaxSteps actions were taken, or a property fails. Properties are
// checked as by BFS: invariants on every state, transition properties on
// every step, quiescence properties on the final state when quiescent.
//
// The result is a function of (m, Walks, MaxSteps, Seed, Properties)
// alone: the same options give the same trace byte for byte whatever the
// number of workers.
func Walk[S any](m Model[S], opt WalkOptions) *WalkResult {
	start := time.Now()
	res := &WalkResult{Model: m.Name(), ViolationWalk: -1}
	walks, maxSteps, workers := opt.Walks, opt.MaxSteps, opt.Workers
	if walks <= 0 {
		walks = 1
	}
	if maxSteps <= 0 {
		maxSteps = 1000
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	ps, err := selectProperties(m.Properties(), opt.Properties)
	if err != nil {
		res.Err = err
		return res
	}
	inits := m.Init()
	if len(inits) == 0 {
		res.Err = fmt.Errorf("checker: %s has no initial state", res.Model)
		return res
	}
	owns := opt.Owns
	if owns == nil {
		owns = func(int) bool { return true }
	}
	selected := walks // walks to run, for progress
	if opt.Owns != nil {
		selected = 0
		for i := range walks {
			if owns(i) {
				selected++
			}
		}
	}
	stats := make([]WalkStat, walks)
	traces := make([]*Trace, walks)
	errs := make([]error, walks)
	var next atomic.Int64
	var first atomic.Int64 // lowest walk index that ended badly
	first.Store(math.MaxInt64)
	var canceled atomic.Bool
	finished := make([]bool, walks)
	var doneWalks, doneSteps atomic.Int64
	stopProgress := make(chan struct{})
	var progressDone sync.WaitGroup
	if opt.Progress != nil {
		every := opt.ProgressEvery
		if every <= 0 {
			every = 2 * time.Second
		}
		progressDone.Go(func() {
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-stopProgress:
					return
				case <-t.C:
					opt.Progress(WalkProgress{Done: int(doneWalks.Load()), Walks: selected, Steps: doneSteps.Load(), Seconds: time.Since(start).Seconds()})
				}
			}
		})
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			w := walker[S]{m: m, ps: ps, inits: inits, maxSteps: maxSteps, ctx: opt.Context}
			for {
				i := int(next.Add(1) - 1)
				if i >= walks || (opt.Owns == nil && int64(i) > first.Load()) {
					return
				}
				if !owns(i) {
					continue
				}
				stats[i], traces[i], errs[i] = w.walk(i, WalkSeed(opt.Seed, i))
				if errs[i] != nil && opt.Context != nil && opt.Context.Err() != nil {
					canceled.Store(true)
					return
				}
				finished[i] = true
				doneWalks.Add(1)
				doneSteps.Add(int64(stats[i].Steps))
				if traces[i] != nil || errs[i] != nil {
					for {
						f := first.Load()
						if int64(i) >= f || first.CompareAndSwap(f, int64(i)) {
							break
						}
					}
				}
			}
		})
	}
	wg.Wait()
	close(stopProgress)
	progressDone.Wait()
	n := walks
	if f := first.Load(); f != math.MaxInt64 && opt.Owns == nil {
		n = int(f) + 1
	}
	if canceled.Load() {
		for i := range n {
			if owns(i) && !finished[i] {
				n, res.Canceled = i, true
				break
			}
		}
	}
	if f := first.Load(); f != math.MaxInt64 && int(f) < n {
		res.Err = errs[f]
		res.Violation = traces[f]
		if res.Violation != nil {
			res.ViolationWalk = int(f)
		}
	}
	res.PerWalk = stats[:n]
	res.Walks = n
	for _, st := range res.PerWalk {
		res.Steps += int64(st.Steps)
	}
	res.Seconds = time.Since(start).Seconds()
	if res.Seconds > 0 {
		res.StepsPerSec = float64(res.Steps) / res.Seconds
	}
	return res
}

type walker[S any] struct {
	m        Model[S]
	ps       *propSet[S]
	inits    []S
	maxSteps int
	ctx      context.Context
	acts     []Action // the walk so far
	buf      []Action
	lassos   walkLassos[S] // Eventually properties: lassos along the walk
}

// walk runs one walk; it returns a trace on violation and an error on a
// model bug or cancellation.
func (w *walker[S]) walk(i int, ws uint64) (st WalkStat, tr *Trace, err error) {
	r := newWalkRand(ws)
	m, ps := w.m, w.ps
	sampler, hasSampler := m.(Sampler[S])
	obs, hasObs := m.(Observer[S])
	init := 0
	if len(w.inits) > 1 {
		init = r.IntN(len(w.inits))
	}
	s := w.inits[init]
	w.acts = w.acts[:0]
	if hasObs {
		defer func() {
			if err == nil {
				obs.ObserveEnd(i, s, st)
			}
		}()
	}
	fail := func(p int, err error) (WalkStat, *Trace, error) {
		st.Violated = true
		steps, derr := describe(m, w.inits[init], w.acts)
		seed := ws
		return st, &Trace{Model: m.Name(), Seed: &seed, Init: init, Steps: steps,
			Violation: ps.violation(p, err, len(steps))}, derr
	}
	if p, err := ps.checkState(m, s); err != nil {
		return fail(p, err)
	}
	lasso := func() (WalkStat, *Trace, error) {
		st.Violated = true
		steps, derr := describe(m, w.inits[init], w.acts)
		seed := ws
		v := w.lassos.violation
		return st, &Trace{Model: m.Name(), Seed: &seed, Init: init, Steps: steps, Violation: v, Loop: v.Steps - w.lassos.start}, derr
	}
	if w.lassos.reset(m, ps); w.lassos.step(0, s) {
		return lasso()
	}
	for st.Steps < w.maxSteps {
		if m.Quiescent(s) {
			st.Quiescent = true
			return st, nil, nil
		}
		if w.ctx != nil && w.ctx.Err() != nil {
			return st, nil, w.ctx.Err()
		}
		var a Action
		if hasSampler {
			var ok bool
			if a, ok = sampler.Sample(s, r, w.buf[:0]); !ok {
				st.Deadlock = true
				return st, nil, nil
			}
		} else {
			w.buf = m.Actions(s, w.buf[:0])
			if len(w.buf) == 0 {
				st.Deadlock = true
				return st, nil, nil
			}
			a = w.buf[r.IntN(len(w.buf))]
		}
		next, err := m.Apply(s, a)
		if err != nil {
			return st, nil, fmt.Errorf("checker: model bug: walk seed %d step %d: Apply %s: %w", ws, st.Steps+1, m.Describe(s, a), err)
		}
		w.acts = append(w.acts, a)
		st.Steps++
		if hasObs {
			obs.ObserveStep(i, s, a, next)
		}
		if p, err := ps.checkStep(s, a, next); err != nil {
			return fail(p, err)
		}
		if p, err := ps.checkState(m, next); err != nil {
			return fail(p, err)
		}
		s = next
		if w.lassos.step(st.Steps, s) {
			return lasso()
		}
	}
	st.Quiescent = m.Quiescent(s)
	return st, nil, nil
}
