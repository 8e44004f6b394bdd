package era

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"gonum.org/v1/gonum/stat"
)

// Messages per process (§3, "Topology Deterioration Mitigation": mending
// "can deteriorate quickly to a star, risking the loss of the
// per-process-logarithmic message count property"). A process's count is
// the messages it sends plus the messages delivered to it, over a whole
// walk, divided by the number of agreements.

// procMsgs counts one walk's messages per process.
type procMsgs struct {
	sent, recv []int32
}

func newProcMsgs(n int) procMsgs {
	return procMsgs{sent: make([]int32, n), recv: make([]int32, n)}
}

// observe counts the step a → next: a delivery adds one to the receiver,
// every send effect one to the actor.
func (c procMsgs) observe(a checker.Action, next *env.World) {
	if a.Kind == env.Deliver {
		c.recv[a.P]++
	}
	p := next.LastActor()
	for _, e := range next.LastEffects() {
		if e.Kind == core.EffSend {
			c.sent[p]++
		}
	}
}

// PerProcess is one walk's messages per process and agreement: the largest
// over every process (crashed ones included: what a process handled before
// it crashed counts), the rank that has it, and the mean over the processes
// that are alive at the end of the walk.
type PerProcess struct {
	Max     float64
	MaxRank int
	Mean    float64
	Crashed int // processes crashed by the end of the walk
}

func (c procMsgs) summary(crashed core.RankSet, agreements int) PerProcess {
	var out PerProcess
	out.MaxRank = -1
	sum, live := 0, 0
	for q := range c.sent {
		m := int(c.sent[q] + c.recv[q])
		if out.MaxRank < 0 || float64(m) > out.Max {
			out.Max, out.MaxRank = float64(m), q
		}
		if !crashed.Has(core.Rank(q)) {
			sum += m
			live++
		}
	}
	ag := float64(max(agreements, 1))
	out.Max /= ag
	out.Mean = float64(sum) / float64(max(live, 1)) / ag
	out.Crashed = crashed.Len()
	return out
}

// msgObserver measures PerProcess on every walk (checker.Observer).
type msgObserver struct {
	*env.Model
	n, agreements int
	mu            sync.Mutex
	counts        []procMsgs
	out           []PerProcess
}

func (o *msgObserver) walk(i int) procMsgs {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.counts[i].sent == nil {
		o.counts[i] = newProcMsgs(o.n)
	}
	return o.counts[i]
}

func (o *msgObserver) ObserveStep(i int, _ *env.World, a checker.Action, next *env.World) {
	o.walk(i).observe(a, next)
}

func (o *msgObserver) ObserveEnd(i int, final *env.World, _ checker.WalkStat) {
	s := o.walk(i).summary(final.CrashedSet(), o.agreements)
	o.mu.Lock()
	o.out[i] = s
	o.counts[i] = procMsgs{} // keep memory flat at N = 6000
	o.mu.Unlock()
}

// MessageRun is the per-process message count of walks of one
// configuration: Max is the largest per-walk maximum, MeanMax the mean of
// the per-walk maxima, Mean the mean of the per-walk means (live
// processes). Quiescent counts the walks that ended with nothing left to
// do (a walk cut by MaxSteps has not finished its agreements).
type MessageRun struct {
	Walks, Quiescent int
	Max, MeanMax     float64
	Mean             float64
	MaxRank          int     // the busiest rank of the walk with the largest maximum
	Crashed          float64 // processes crashed per walk, mean
	Steps            int64
	Holds            bool // every property held in every walk
}

// MessagesPerProcess runs walks random walks of p (inputs drawn from seed,
// as `ftcheck simulate era --seed` draws them) and measures each process's
// messages per agreement. maxSteps 0 is simulate's default, 200·N·agreements.
func MessagesPerProcess(p Params, walks int, seed uint64, maxSteps int) (MessageRun, error) {
	if maxSteps <= 0 {
		maxSteps = 200 * p.N * p.Agreements
	}
	m, err := NewModel(p, [][][]core.Input{randomInputs(p, seed&(1<<63-1))})
	if err != nil {
		return MessageRun{}, err
	}
	obs := &msgObserver{Model: m, n: p.N, agreements: p.Agreements, counts: make([]procMsgs, walks), out: make([]PerProcess, walks)}
	res := checker.Walk[*env.World](obs, checker.WalkOptions{Walks: walks, MaxSteps: maxSteps, Seed: seed})
	if res.Err != nil {
		return MessageRun{}, res.Err
	}
	run := MessageRun{Walks: res.Walks, Steps: res.Steps, Holds: res.Violation == nil, MaxRank: -1}
	for i := 0; i < res.Walks; i++ {
		w := obs.out[i]
		if w.Max > run.Max || run.MaxRank < 0 {
			run.Max, run.MaxRank = w.Max, w.MaxRank
		}
		run.MeanMax += w.Max
		run.Mean += w.Mean
		run.Crashed += float64(w.Crashed)
		if res.PerWalk[i].Quiescent {
			run.Quiescent++
		}
	}
	if res.Walks > 0 {
		run.MeanMax /= float64(res.Walks)
		run.Mean /= float64(res.Walks)
		run.Crashed /= float64(res.Walks)
	}
	return run, nil
}

// Fit is a least-squares line y = Alpha + Beta·x (gonum/stat) with its
// coefficient of determination.
type Fit struct {
	Alpha, Beta, R2 float64
}

func (f Fit) String() string {
	return fmt.Sprintf("%.3g + %.3g·x (R² %.3f)", f.Alpha, f.Beta, f.R2)
}

// FitLine fits y against x. A constant y has R² NaN (no variance to
// explain); it is reported as 1 when the line is exact.
func FitLine(x, y []float64) Fit {
	a, b := stat.LinearRegression(x, y, nil, false)
	r2 := stat.RSquared(x, y, nil, a, b)
	if math.IsNaN(r2) && slices.Min(y) == slices.Max(y) {
		r2 = 1
	}
	return Fit{Alpha: a, Beta: b, R2: r2}
}

// Log2s is log2 of each n.
func Log2s(ns []int) []float64 {
	out := make([]float64, len(ns))
	for i, n := range ns {
		out[i] = math.Log2(float64(n))
	}
	return out
}

// Floats converts ns.
func Floats(ns []int) []float64 {
	out := make([]float64, len(ns))
	for i, n := range ns {
		out[i] = float64(n)
	}
	return out
}
