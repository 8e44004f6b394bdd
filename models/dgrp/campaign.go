package dgrp

import (
	"fmt"
	"math/rand/v2"

	"github.com/ftkernel/ftkernel/core"
	dg "github.com/ftkernel/ftkernel/statemachine/dgrp"
)

// Table41Tasks is Table 4.1's load: the number of tasks running on each
// of the 18 machines during the thesis's run (§4.3).
var Table41Tasks = []int{9, 33, 33, 32, 32, 32, 3, 2, 3, 4, 8, 5, 32, 2, 1, 31, 31, 31}

// Table41Counters is Table 4.1's final event counter of each machine.
var Table41Counters = []uint32{6, 10, 22, 14, 12, 12, 2, 4, 6, 6, 6, 0, 6, 2, 2, 12, 8, 14}

// CampaignParams describe a DGRP campaign with synthetic response times
// (§4.3's experiment in spirit; the cluster's real load is not
// available).
//
// The response-time model (milliseconds): process j's mean is Base·(1 +
// tasks_j/8), tasks_j from Table 4.1 (cycled beyond 18 processes); each
// test's response time is the mean times a uniform factor in [0.8, 1.2],
// and with probability tasks_j/32 · Spike a spike of 2 to 6 times that
// (a loaded machine is slow now and then). Process Loaded alternates
// every Period rounds between its load and three times it. Each tester
// keeps a Jacobson/Karels estimator per tested process (dg.Estimator),
// threshold F·RTO, Initial before the first sample; a test fails when its
// response time is over the threshold. Every draw comes from Seed.
type CampaignParams struct {
	N, Zeta, Rounds int
	Seed            uint64
	Base, Spike, F  float64
	Initial         float64
	Loaded, Period  int
}

// DefaultCampaign is the §4.3 setting: 18 processes, ζ = 5, 30,000 test
// rounds, F = 2.5, an initial threshold of 8 s, process 2 loaded.
var DefaultCampaign = CampaignParams{N: 18, Zeta: 5, Rounds: 30000, Base: 10, Spike: 0.002, F: 2.5,
	Initial: 8000, Loaded: 2, Period: 1000}

// CampaignResult is what a campaign measured.
type CampaignResult struct {
	// GroupSize is, per test round (index 0 is round 1), the size of the
	// view the lowest process that is a member of its own view read at
	// that round's barrier.
	GroupSize []int
	// Changes counts the rounds whose view differs from the previous
	// round's.
	Changes int
	// Counters are the final event counters, the maximum over the
	// processes (what max-merge converges to).
	Counters []uint32
	// Requests counts the READMIT_REQs sent; Readmissions the
	// re-admissions decided by consensus (p0's Paxos log).
	Requests, Readmissions int
	// Detections[i][k] counts the times tester i found k non-recommended
	// while k was recommended in its view (an event it broadcast).
	Detections [][]int
	// SlowTests counts the tests over the threshold.
	SlowTests int
}

// responses draws every test's verdict: the Slow lists of each tester.
func (c CampaignParams) responses() ([][]dg.Slow, int) {
	rng := rand.New(rand.NewPCG(c.Seed, 0x6467727063616d70))
	est := make([][]dg.Estimator, c.N)
	for i := range est {
		est[i] = make([]dg.Estimator, c.N)
	}
	slow := make([][]dg.Slow, c.N)
	total := 0
	for r := 1; r <= c.Rounds; r++ {
		for j := range c.N {
			tasks := float64(Table41Tasks[j%len(Table41Tasks)])
			if j == c.Loaded && c.Period > 0 && (r/c.Period)%2 == 1 {
				tasks *= 3
			}
			mean := c.Base * (1 + tasks/8)
			for i := range c.N {
				if i == j {
					continue
				}
				rt := mean * (0.8 + 0.4*rng.Float64())
				if rng.Float64() < tasks/32*c.Spike {
					rt *= 2 + 4*rng.Float64()
				}
				if !est[i][j].Pass(rt, c.F, c.Initial) {
					slow[i] = append(slow[i], dg.Slow{Round: uint32(r), Peer: core.Rank(j)})
					total++
				}
			}
		}
	}
	return slow, total
}

// Campaign runs the DGRP nodes (with Paxos re-admission) in lock-step
// rounds on reliable channels, each tester's verdicts drawn by responses.
func Campaign(c CampaignParams) (*CampaignResult, error) {
	cfg := dg.Config{N: c.N, Zeta: c.Zeta, Rounds: c.Rounds, Consensus: Paxos{}}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	slow, total := c.responses()
	nodes := make([]*dg.Node, c.N)
	for r := range nodes {
		n, err := dg.New(core.Rank(r), cfg)
		if err != nil {
			return nil, err
		}
		nodes[r] = n
	}
	res := &CampaignResult{GroupSize: make([]int, c.Rounds), SlowTests: total, Detections: make([][]int, c.N)}
	for i := range res.Detections {
		res.Detections[i] = make([]int, c.N)
	}
	from := make([]core.Rank, c.Rounds) // which rank's view GroupSize[r] is
	views := make([]core.RankSet, c.Rounds)
	for i := range from {
		from[i] = core.NoRank
	}
	seen := make([]uint32, c.N)
	type envelope struct {
		from, to core.Rank
		m        core.Message
	}
	var queue []envelope
	timers := make([]map[uint64]bool, c.N)
	for i := range timers {
		timers[i] = map[uint64]bool{}
	}
	step := func(v core.Rank, ev core.Event) error {
		effs, err := nodes[v].Step(ev, nil)
		if err != nil {
			return fmt.Errorf("dgrp campaign: %v on %v: %w", v, ev, err)
		}
		for _, e := range effs {
			switch e.Kind {
			case core.EffSend:
				queue = append(queue, envelope{v, e.To, e.Msg})
				if m, ok := e.Msg.(dg.Events); ok && e.To == (v+1)%core.Rank(c.N) {
					for _, x := range m.List {
						res.Detections[v][x.K]++
					}
				}
			case core.EffSetTimer:
				timers[v][e.Timer] = true
			}
		}
		if b := nodes[v].LastBarrier(); b > seen[v] {
			seen[v] = b
			if view, _, ok := nodes[v].ViewAt(b); ok && view.Has(v) && (from[b-1] == core.NoRank || v < from[b-1]) {
				from[b-1], views[b-1], res.GroupSize[b-1] = v, view, view.Len()
			}
		}
		return nil
	}
	for v := range core.Rank(c.N) {
		if err := step(v, core.Call(dg.Start{Slow: slow[v]})); err != nil {
			return nil, err
		}
	}
	for {
		fired := false
		for v := range core.Rank(c.N) {
			armed := timers[v]
			timers[v] = map[uint64]bool{}
			for _, id := range []uint64{dg.TimerTick, dg.TimerConsensus} {
				if armed[id] {
					fired = true
					if err := step(v, core.Timer(id)); err != nil {
						return nil, err
					}
				}
			}
		}
		for len(queue) > 0 {
			e := queue[0]
			queue = queue[1:]
			if err := step(e.to, core.Receive(e.from, e.m)); err != nil {
				return nil, err
			}
		}
		if !fired {
			break
		}
	}
	for r := 1; r < c.Rounds; r++ {
		if !views[r].Equal(views[r-1]) {
			res.Changes++
		}
	}
	res.Counters = make([]uint32, c.N)
	for _, n := range nodes {
		for k, x := range n.Syndrome() {
			res.Counters[k] = max(res.Counters[k], x)
		}
		res.Requests += len(n.Requests())
	}
	res.Readmissions = len(nodes[0].Decided())
	return res, nil
}
