package msglog

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// CampaignResult sums random runs with crashes and restarts.
type CampaignResult struct {
	Runs, Steps, Crashes, Restarts int
	// Delivered counts the application messages delivered (receive
	// events, re-executions after a restart included).
	Delivered int
	Finished  int
	// Violation is the first property violated ("" if none), with its run.
	Violation string
	Run       int
}

// Campaign runs walks seeded random schedules of p's program: at each step
// a live application process crashes with probability crashProb while
// the budget p.Crashes lasts, and every crashed process restarts as soon
// as the environment allows (every survivor told); the other actions are
// drawn uniformly. Every invariant is checked after every step, and each
// run must end with every process done and its outputs equal to the
// failure-free run's when the program has no non-deterministic event (with
// ANY_SOURCE or Iprobe, a run after a crash may see another arrival order
// than the reference run: recovery-faithful and no-orphan judge those).
// Unless concurrent, a process crashes only when no
// other is down or replaying (one failure at a time, the case Algorithm 4
// is written for).
func Campaign(p Params, walks int, crashProb float64, concurrent bool, seed uint64) (CampaignResult, error) {
	var out CampaignResult
	p.Recoveries = p.Crashes
	m, err := NewModel(p)
	if err != nil {
		return out, err
	}
	ff, err := Simulate(p, Crash{}, 0)
	if err != nil {
		return out, err
	}
	rng := rand.New(rand.NewPCG(seed, 0xC0FFEE))
	var buf []checker.Action
	for run := range walks {
		w := m.Init()[0]
		out.Runs++
		for step := 0; step < 1_000_000; step++ {
			buf = m.Actions(w, buf[:0])
			var acts, crashes []checker.Action
			var rec *checker.Action
			for _, a := range buf {
				switch a.Kind {
				case env.Crash:
					if int(a.P) < p.Procs {
						crashes = append(crashes, a)
					}
				case env.Recover:
					rec = &a
				case env.Lose, env.Duplicate:
				default:
					acts = append(acts, a)
				}
			}
			var a checker.Action
			switch {
			case rec != nil:
				a = *rec
				out.Restarts++
			case len(crashes) > 0 && (concurrent || Settled(w, p.Procs)) && rng.Float64() < crashProb:
				a = crashes[rng.IntN(len(crashes))]
				out.Crashes++
			case len(acts) > 0:
				a = acts[rng.IntN(len(acts))]
			default:
				step = 1_000_000
				continue
			}
			if w, err = m.Apply(w, a); err != nil {
				return out, err
			}
			out.Steps++
			out.Delivered += recvCount(w)
			if v := violated(m, w); v != "" {
				out.Violation, out.Run = v, run
				return out, nil
			}
		}
		var stuck []string
		for q := range core.Rank(p.Procs) {
			if w.Crashed(q) || !proc(w, q).Done() {
				stuck = append(stuck, proc(w, q).String())
			}
		}
		if len(stuck) > 0 {
			out.Violation, out.Run = "termination: a run ended with "+strings.Join(stuck, "; "), run
			return out, nil
		}
		out.Finished++
		if !deterministic(p.program()) {
			continue // another arrival order gives other outputs, legitimately
		}
		for q := range core.Rank(p.Procs) {
			if lastOutput(w, q) != ff.Outputs[q] {
				out.Violation, out.Run = fmt.Sprintf("outputs: p%d output %d, failure-free %d", q, lastOutput(w, q), ff.Outputs[q]), run
				return out, nil
			}
		}
	}
	return out, nil
}

// recvCount is the number of application messages the last step of w
// delivered (a step runs its process's program until it blocks, so it may
// deliver several).
func recvCount(w *env.World) int {
	n := 0
	for _, e := range w.LastEffects() {
		if ev, ok := e.Value.(ml.Event); ok && e.Kind == core.EffDeliver && ev.Kind == ml.EvRecv {
			n++
		}
	}
	return n
}

// Settled reports whether every application process is up and none is
// replaying its determinants.
func Settled(w *env.World, procs int) bool {
	for q := range core.Rank(procs) {
		if w.Crashed(q) || proc(w, q).Recovering() {
			return false
		}
	}
	return true
}

// deterministic reports whether prog has no ANY_SOURCE receive or probe.
func deterministic(prog ml.Program) bool {
	for _, ops := range prog.Procs {
		for _, o := range ops {
			if o.Peer == ml.AnySource {
				return false
			}
		}
	}
	return true
}
