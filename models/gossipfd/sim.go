package gossipfd

import (
	"container/heap"
	"fmt"
	"math/rand/v2"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// SimConfig is one run of the discrete-event driver. Time is in ticks;
// T_gossip is Node.TGossip ticks.
type SimConfig struct {
	// Node configures every host's machine.
	Node fd.Config
	// DelayMin and DelayMax bound each message's delay in ticks
	// (1 ≤ DelayMin ≤ DelayMax); a delay is drawn uniformly from a PCG
	// generator seeded with Seed, in send order.
	DelayMin, DelayMax uint64
	Seed               uint64
	// Crash maps a host to the tick at which it crashes (fail-stop: it
	// takes no further step and receives nothing; what it sent is still
	// delivered).
	Crash map[core.Rank]uint64
	// Start, if not nil, gives each host's start tick (len N); nil starts
	// every host at tick 0 (the start-up assumption).
	Start []uint64
	// Rounds is the horizon: the run stops after tick Rounds × TGossip.
	Rounds int
	// Observe, if set, is called after every gossip round of a live host
	// (after its gossip timer step) with the tick and the node.
	Observe func(tick uint64, n *fd.Node)
}

// Event is one observed suspicion or declaration.
type Event struct {
	Tick  uint64    // when
	Round uint64    // the observer's round g
	By, X core.Rank // observer, observed host
}

// SimResult is what a run observed.
type SimResult struct {
	Nodes        []*fd.Node // final states
	Suspicions   []Event    // every new suspicion (before or without the ping phase), in order
	Declarations []Event    // every declaration (EffSuspect), in order
	// Messages and Bytes count the GOSSIP messages sent and their encoded
	// bytes, per round index (tick / TGossip); Pings counts PING and PONG.
	Messages, Bytes []int
	Pings           int
	// InFlight lists the messages sent and not yet delivered at the
	// horizon, in delivery order (to crashed hosts included).
	InFlight []Envelope
}

// Envelope is a message in flight.
type Envelope struct {
	From, To core.Rank
	Msg      core.Message
}

// Live reports whether host x is alive at tick t in cfg.
func (c *SimConfig) Live(x core.Rank, t uint64) bool {
	ct, ok := c.Crash[x]
	return !ok || t < ct
}

// event kinds, ordered within a tick: crashes, then starts, deliveries,
// timers.
const (
	evCrash = iota
	evStart
	evDeliver
	evTimer
)

type simEvent struct {
	tick uint64
	kind int
	seq  uint64
	host core.Rank
	from core.Rank
	msg  core.Message
	id   uint64 // timer id
}

type eventHeap []simEvent

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.tick != b.tick {
		return a.tick < b.tick
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(simEvent)) }
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Simulate runs the machines: each host is started at its start tick; a
// gossip or ping timer armed at tick t with Delay d fires at t + d (re-arming
// an armed timer moves its deadline); a message sent at t is delivered at t
// + delay. At one tick, crashes come first, then starts, deliveries (in send
// order) and timer firings (in arming order). Deterministic: the same config
// gives the same run.
func Simulate(c SimConfig) (*SimResult, error) {
	N := c.Node.N
	if err := c.Node.Validate(); err != nil {
		return nil, err
	}
	switch {
	case c.DelayMin < 1 || c.DelayMax < c.DelayMin:
		return nil, fmt.Errorf("gossipfd: delay in [%d, %d] ticks, want 1 ≤ min ≤ max", c.DelayMin, c.DelayMax)
	case c.Start != nil && len(c.Start) != N:
		return nil, fmt.Errorf("gossipfd: %d start ticks for %d hosts", len(c.Start), N)
	case c.Rounds < 0:
		return nil, fmt.Errorf("gossipfd: %d rounds", c.Rounds)
	}
	for x := range c.Crash {
		if !x.Valid(N) {
			return nil, fmt.Errorf("gossipfd: crash of host %d of %d", x, N)
		}
	}
	cfg := c.Node
	res := &SimResult{Messages: make([]int, c.Rounds+1), Bytes: make([]int, c.Rounds+1)}
	rng := rand.New(rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15))
	var h eventHeap
	var seq uint64
	push := func(e simEvent) {
		seq++
		e.seq = seq
		heap.Push(&h, e)
	}
	armed := make([]map[uint64]uint64, N) // timer id → seq of its live event
	dead := make([]bool, N)
	for s := range N {
		n, err := fd.New(core.Rank(s), &cfg)
		if err != nil {
			return nil, err
		}
		res.Nodes = append(res.Nodes, n)
		armed[s] = map[uint64]uint64{}
		var st uint64
		if c.Start != nil {
			st = c.Start[s]
		}
		push(simEvent{tick: st, kind: evStart, host: core.Rank(s)})
	}
	for x, t := range c.Crash {
		push(simEvent{tick: t, kind: evCrash, host: x})
	}
	end := uint64(c.Rounds) * cfg.TGossip
	var eff []core.Effect
	for h.Len() > 0 {
		e := heap.Pop(&h).(simEvent)
		if e.tick > end {
			if e.kind == evDeliver {
				res.InFlight = append(res.InFlight, Envelope{e.from, e.host, e.msg})
			}
			continue
		}
		s := e.host
		if dead[s] {
			continue
		}
		var ev core.Event
		switch e.kind {
		case evCrash:
			dead[s] = true
			continue
		case evStart:
			ev = core.Call(fd.Start{})
		case evDeliver:
			ev = core.Receive(e.from, e.msg)
		case evTimer:
			if armed[s][e.id] != e.seq {
				continue // re-armed since
			}
			delete(armed[s], e.id)
			ev = core.Timer(e.id)
		}
		n := res.Nodes[s]
		before := n.Suspected().Union(n.Declared())
		var err error
		eff, err = n.Step(ev, eff[:0])
		if err != nil {
			return nil, fmt.Errorf("tick %d: %v: %v: %w", e.tick, s, ev, err)
		}
		n.Suspected().Union(n.Declared()).Each(func(x core.Rank) {
			if !before.Has(x) {
				res.Suspicions = append(res.Suspicions, Event{e.tick, n.Round(), s, x})
			}
		})
		for _, f := range eff {
			switch f.Kind {
			case core.EffSend:
				d := c.DelayMin
				if c.DelayMax > c.DelayMin {
					d += rng.Uint64N(c.DelayMax - c.DelayMin + 1)
				}
				if _, ok := f.Msg.(fd.Gossip); ok {
					r := int(e.tick / cfg.TGossip)
					if r < len(res.Messages) {
						res.Messages[r]++
						res.Bytes[r] += len(f.Msg.AppendBinary(nil))
					}
				} else {
					res.Pings++
				}
				push(simEvent{tick: e.tick + d, kind: evDeliver, host: f.To, from: s, msg: f.Msg})
			case core.EffSetTimer:
				push(simEvent{tick: e.tick + f.Delay, kind: evTimer, host: s, id: f.Timer})
				armed[s][f.Timer] = seq
			case core.EffSuspect:
				res.Declarations = append(res.Declarations, Event{e.tick, n.Round(), s, f.Peer})
			}
		}
		if c.Observe != nil && e.kind == evTimer && e.id == fd.TimerGossip {
			c.Observe(e.tick, n)
		}
	}
	return res, nil
}
