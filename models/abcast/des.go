package abcast

import (
	"container/heap"
	"fmt"
	"math/rand/v2"

	"github.com/ftkernel/ftkernel/core"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
	px "github.com/ftkernel/ftkernel/statemachine/paxos"
)

// Round is the appendix's broadcast round, simulated: N nodes of which
// Unstable are outside the core, so s = N − Unstable members, each
// broadcasting one message at StartTime ("Todos os nodos estáveis enviam
// uma mensagem entre si").
type Round struct {
	Variant     ab.Variant
	N, Unstable int
	// K is the consensus batch size (0: s, Fig. A.3 and A.4's "k igual
	// número de processos estáveis").
	K    int
	Seed uint64
	// Tx is the mean transmission time of a message on the shared network
	// (time units); Handle the mean time a process of speed 1 takes to
	// handle one event.
	Tx, Handle float64
}

// StartTime is when the members start transmitting ("os nodos iniciam a
// transmissão de suas mensagens na unidade de tempo 30").
const StartTime = 30

// Delay model of the simulation (the appendix ran SMPL and does not give
// its distributions). The network is one shared medium (an SMPL facility):
// messages wait for it in the order they are sent and each holds it for an
// exponentially distributed transmission time of mean Tx; a message to
// oneself does not use it. Each process handles one event at a time, in
// arrival order, in Handle/v time units, v its speed, drawn once per
// process uniformly in [0.5, 1.5] ("Os processos podem apresentar
// velocidades de execução diferentes"). No message is lost.

// RoundResult are a round's counts and times.
type RoundResult struct {
	Core, K   int
	Instances int
	// Messages by kind; Total is every message sent, self-sends included.
	Total, Broadcast, Seq, SeqAck, Decision int
	// Consensus is every Paxos message; Phase1 its PREPARE and PROMISE,
	// Phase2 its ACCEPT and ACCEPTED.
	Consensus, Phase1, Phase2 int
	// Latency is the time from StartTime to the last delivery;
	// ConsensusLatency the mean time an instance took, from its first
	// ACCEPT sent to its DECISION sent.
	Latency, ConsensusLatency float64
	// Delivered is the number of deliveries (s² when every member
	// delivers every message).
	Delivered int
}

type desEvent struct {
	t   float64
	seq uint64
	to  core.Rank
	ev  core.Event
}

type desQueue []desEvent

func (q desQueue) Len() int { return len(q) }
func (q desQueue) Less(i, j int) bool {
	if q[i].t != q[j].t {
		return q[i].t < q[j].t
	}
	return q[i].seq < q[j].seq
}
func (q desQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *desQueue) Push(x any)   { *q = append(*q, x.(desEvent)) }
func (q *desQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// Simulate runs the round: deterministic for a seed.
func (r Round) Simulate() (RoundResult, error) {
	s := r.N - r.Unstable
	if s < 2 || s > ab.MaxN {
		return RoundResult{}, fmt.Errorf("core of %d members (n=%d, unstable=%d): want 2 … %d", s, r.N, r.Unstable, ab.MaxN)
	}
	k := r.K
	if k == 0 {
		k = s
	}
	cfg := ab.Config{N: s, Variant: r.Variant, K: k, Messages: 1}
	if r.Variant == ab.ConsensusBased {
		cfg.Consensus = Paxos{}
	}
	rng := rand.New(rand.NewPCG(r.Seed, 0xab))
	nodes := make([]*ab.Node, s)
	speed := make([]float64, s)
	busy := make([]float64, s)
	for p := range nodes {
		n, err := ab.New(core.Rank(p), cfg)
		if err != nil {
			return RoundResult{}, err
		}
		nodes[p] = n
		speed[p] = 0.5 + rng.Float64()
	}
	res := RoundResult{Core: s, K: k}
	var q desQueue
	var seq uint64
	push := func(t float64, to core.Rank, ev core.Event) {
		heap.Push(&q, desEvent{t: t, seq: seq, to: to, ev: ev})
		seq++
	}
	for p := range s {
		push(StartTime, core.Rank(p), core.Call(ab.Broadcast{Seq: 0}))
	}
	medium := 0.0
	accept := map[uint64]float64{}
	var effs []core.Effect
	for q.Len() > 0 {
		e := heap.Pop(&q).(desEvent)
		start := max(e.t, busy[e.to])
		done := start + r.Handle/speed[e.to]
		busy[e.to] = done
		var err error
		if effs, err = nodes[e.to].Step(e.ev, effs[:0]); err != nil {
			return res, err
		}
		for _, f := range effs {
			switch f.Kind {
			case core.EffDeliver:
				res.Delivered++
				res.Latency = max(res.Latency, done-StartTime)
			case core.EffSend:
				res.Total++
				res.count(e.to, f, done, accept)
				at := done
				if f.To != e.to {
					medium = max(medium, done) + rng.ExpFloat64()*r.Tx
					at = medium
				}
				push(at, f.To, core.Receive(e.to, f.Msg))
			}
		}
	}
	if res.Instances > 0 {
		res.ConsensusLatency /= float64(res.Instances)
	}
	if res.Delivered != s*s {
		return res, fmt.Errorf("round ended with %d deliveries, want %d", res.Delivered, s*s)
	}
	return res, nil
}

// count files a send of p at time t under its kind.
func (res *RoundResult) count(p core.Rank, f core.Effect, t float64, accept map[uint64]float64) {
	switch m := f.Msg.(type) {
	case ab.Msg:
		res.Broadcast++
	case ab.Seq:
		if m.Payload || m.ID.Origin != f.To {
			res.Seq++
		} else {
			res.SeqAck++
		}
	case ab.Decision:
		res.Decision++
		if f.To == 1 || (f.To == 0 && p != 0) {
			res.Instances++
			res.ConsensusLatency += t - accept[m.Inst]
		}
	case px.Prepare, px.Promise:
		res.Consensus++
		res.Phase1++
	case px.Accept:
		res.Consensus++
		res.Phase2++
		if _, ok := accept[m.Inst]; !ok {
			accept[m.Inst] = t
		}
	case px.Accepted:
		res.Consensus++
		res.Phase2++
	default:
		res.Consensus++
	}
}
