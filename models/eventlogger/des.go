package eventlogger

import (
	"container/heap"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// CostModel is the throughput simulation's cost model, in microseconds.
// Every process is single-threaded (one server, its jobs in arrival
// order); a node runs at most Cores of its processes at once.
type CostModel struct {
	// Msg is the CPU time a process spends per network message it sends
	// or receives (a message between co-located roles costs nothing).
	Msg float64 `json:"msg_us"`
	// Consensus is the CPU time per consensus at each node that stores a
	// determinant: an acceptor accepting an instance (ACCEPT), the
	// centralized logger saving one (SAVE).
	Consensus float64 `json:"consensus_us"`
	// Latency is the one-way network delay.
	Latency float64 `json:"latency_us"`
	// Cores is the number of cores of a logger node; an application
	// process has a node of its own.
	Cores int `json:"cores"`
}

// DESParams is one throughput run: Procs application processes, each
// saving a determinant as soon as the previous one is acknowledged
// (§5.3.1's micro-benchmark), for Duration µs after Warmup µs.
type DESParams struct {
	Count            CountParams
	Cost             CostModel
	Duration, Warmup float64
	// Think is the application's time (µs) between a save's
	// acknowledgement and the process's next save; process q makes its
	// first save at q·Think/Procs, so the processes do not start in
	// lockstep. 0 is the micro-benchmark's closed loop.
	Think float64
}

// DESResult is a throughput run's outcome.
type DESResult struct {
	Throughput float64 `json:"throughput"` // determinants per ms
	Latency    float64 `json:"latency_ms"` // mean save latency
	Saves      int     `json:"saves"`
	// Busiest is the process with the highest utilisation, and it.
	Busiest     string  `json:"busiest"`
	Utilisation float64 `json:"busiest_utilisation"`
}

type job struct {
	at   float64
	rank core.Rank
	ev   core.Event
	net  bool // arrived over the network (costs Msg to receive)
}

type procKey struct {
	rank core.Rank
	seq  int
}

type desEvent struct {
	t    float64
	n    int // tie-break: order of creation
	done bool
	j    job
	key  procKey
	effs []core.Effect
}

type evHeap []*desEvent

func (h evHeap) Len() int { return len(h) }
func (h evHeap) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].n < h[j].n
}
func (h evHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *evHeap) Push(x any)   { *h = append(*h, x.(*desEvent)) }
func (h *evHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Throughput runs the discrete-event simulation of p: the machines of
// the deployment stepped at simulated times under the cost model (never
// wall-clock time). Each application process saves in a closed loop.
func Throughput(p DESParams) (DESResult, error) {
	c := p.Count.config()
	if err := c.Validate(); err != nil {
		return DESResult{}, err
	}
	if p.Think < 0 {
		return DESResult{}, fmt.Errorf("think %g µs: want ≥ 0", p.Think)
	}
	if p.Cost.Cores < 1 {
		return DESResult{}, fmt.Errorf("cores %d: want ≥ 1", p.Cost.Cores)
	}
	nodes, err := el.NewAll(c)
	if err != nil {
		return DESResult{}, err
	}
	held := func(core.Rank) bool { return false }
	if !p.Count.AllAcceptors && c.Kind != el.Centralized {
		// the best case's quorum, as Count takes it
		in := quorumNodes(c, p.Count.F, core.NoRank)
		held = func(to core.Rank) bool { return int(to) >= c.Procs && !in[to] }
	}
	var h evHeap
	seq := 0
	push := func(e *desEvent) {
		e.n = seq
		seq++
		heap.Push(&h, e)
	}
	queues := map[procKey][]job{}
	busy := map[procKey]bool{}
	busyTime := map[procKey]float64{}
	running := make([]int, len(nodes))
	cores := func(r core.Rank) int {
		if int(r) < c.Procs {
			return 1
		}
		return p.Cost.Cores
	}
	keyOf := func(j job) procKey {
		k := procKey{rank: j.rank, seq: -1}
		if w, ok := j.ev.Msg.(el.Wrap); ok && c.Kind == el.Parallel && int(j.rank) >= c.Procs {
			k.seq = int(w.Seq) // each sequence's acceptor is a process of its own
		}
		return k
	}
	var waiting []procKey // processes with queued jobs, in order of their first job
	var stepErr error
	start := func(now float64) {
		for i := 0; i < len(waiting); i++ {
			k := waiting[i]
			if busy[k] || running[k.rank] >= cores(k.rank) || len(queues[k]) == 0 {
				continue
			}
			j := queues[k][0]
			queues[k] = queues[k][1:]
			if len(queues[k]) == 0 {
				waiting = append(waiting[:i], waiting[i+1:]...)
				i--
			}
			effs, err := nodes[j.rank].Step(j.ev, nil)
			if err != nil && stepErr == nil {
				stepErr = fmt.Errorf("p%d %v: %w", j.rank, j.ev, err)
			}
			cost := 0.0
			if j.net {
				cost += p.Cost.Msg
			}
			if w, ok := j.ev.Msg.(el.Wrap); ok && w.Kind() == "ACCEPT" {
				cost += p.Cost.Consensus
			}
			if m, ok := j.ev.Msg.(el.Msg); ok && m.K == el.MsgSave {
				cost += p.Cost.Consensus
			}
			for _, e := range effs {
				if e.Kind == core.EffSend && e.To != j.rank && !held(e.To) {
					cost += p.Cost.Msg
				}
			}
			busy[k] = true
			running[k.rank]++
			busyTime[k] += cost
			push(&desEvent{t: now + cost, done: true, j: j, key: k, effs: effs})
		}
	}
	arrive := func(j job) {
		k := keyOf(j)
		if len(queues[k]) == 0 {
			waiting = append(waiting, k)
		}
		queues[k] = append(queues[k], j)
	}
	called := make([]float64, c.Procs)
	next := make([]int, c.Procs)
	now := 0.0
	call := func(at float64, q core.Rank) {
		called[q] = at
		next[q]++
		j := job{at: at, rank: q, ev: core.Call(el.Save{Det: fmt.Sprintf("d%d.%d", q, next[q])})}
		if at <= now {
			arrive(j)
		} else {
			push(&desEvent{t: at, j: j})
		}
	}
	// Phase 1 first, at time 0; the saves start once it is over.
	for s := range c.Sequences() {
		arrive(job{rank: c.Coordinator(s), ev: core.Call(el.Start{})})
	}
	started := false
	var saves int
	var latSum float64
	end := p.Warmup + p.Duration
	for {
		start(now)
		if stepErr != nil {
			return DESResult{}, stepErr
		}
		if h.Len() == 0 {
			if started {
				break
			}
			started = true
			for q := range core.Rank(c.Procs) {
				call(now+float64(q)*p.Think/float64(c.Procs), q)
			}
			continue
		}
		e := heap.Pop(&h).(*desEvent)
		now = e.t
		if now > end {
			break
		}
		if !e.done {
			arrive(e.j)
			continue
		}
		busy[e.key] = false
		running[e.key.rank]--
		for _, f := range e.effs {
			switch f.Kind {
			case core.EffSend:
				if held(f.To) {
					continue
				}
				if f.To == e.j.rank {
					arrive(job{at: now, rank: f.To, ev: core.Receive(e.j.rank, f.Msg)})
				} else {
					push(&desEvent{t: now + p.Cost.Latency, j: job{at: now + p.Cost.Latency, rank: f.To, ev: core.Receive(e.j.rank, f.Msg), net: true}})
				}
			case core.EffReturn:
				res, ok := f.Value.(el.Result)
				if !ok || res.Op != el.OpSave || int(e.j.rank) >= c.Procs {
					continue
				}
				if now >= p.Warmup {
					saves++
					latSum += now - called[e.j.rank]
				}
				call(now+p.Think, e.j.rank)
			}
		}
	}
	out := DESResult{Saves: saves}
	if saves > 0 {
		out.Throughput = float64(saves) / (p.Duration / 1000)
		out.Latency = latSum / float64(saves) / 1000
	}
	for k, b := range busyTime {
		if u := b / now; u > out.Utilisation {
			out.Utilisation = u
			out.Busiest = fmt.Sprintf("p%d", k.rank)
			if k.seq >= 0 {
				out.Busiest += fmt.Sprintf("/s%d", k.seq)
			}
		}
	}
	return out, nil
}

// quorumNodes is the set of logger nodes taking part in the best case:
// non-acceptor logger nodes, and the first f+1 acceptors up (Parallel's
// Table 5.1 deployment: f nodes besides the co-located acceptor) with
// their learners when these are separate nodes.
func quorumNodes(c el.Config, f int, down core.Rank) map[core.Rank]bool {
	accs := c.AcceptorRanks(0)
	learners := c.LearnerRanks(0)
	in := map[core.Rank]bool{}
	for l := range c.Loggers() {
		q := core.Rank(c.Procs + l)
		if !containsRank(accs, q) && !containsRank(learners, q) {
			in[q] = true
		}
	}
	took := 0
	for k, a := range accs {
		if a == down || took == f+1 {
			continue
		}
		took++
		in[a] = true
		if c.SeparateLearners {
			in[learners[k]] = true
		}
	}
	return in
}

func containsRank(rs []core.Rank, q core.Rank) bool {
	for _, r := range rs {
		if r == q {
			return true
		}
	}
	return false
}
