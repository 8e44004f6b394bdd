package replica

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// cluster drives replicas by hand: a scripted network (messages in flight
// in sending order), crashes and failure notifications, as the paper's
// worked examples describe them.
type cluster struct {
	t       *testing.T
	nodes   []*Node
	crashed core.RankSet
	flight  []envelope
	deliv   map[core.Rank][]Delivery
	outs    map[core.Rank][]int64
	sent    map[string]int // messages sent, by kind
	log     []string       // effects of the steps, for scripts
}

type envelope struct {
	from, to core.Rank
	msg      core.Message
}

func newCluster(t *testing.T, cfg Config) *cluster {
	t.Helper()
	nodes, err := NewAll(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{t: t, nodes: nodes, deliv: map[core.Rank][]Delivery{}, outs: map[core.Rank][]int64{}, sent: map[string]int{}}
}

func (c *cluster) step(r core.Rank, ev core.Event) {
	c.t.Helper()
	if c.crashed.Has(r) {
		c.t.Fatalf("step of crashed %v", r)
	}
	effs, err := c.nodes[r].Step(ev, nil)
	if err != nil {
		c.t.Fatalf("%v on %v: %v", r, ev, err)
	}
	for _, e := range effs {
		c.log = append(c.log, fmt.Sprintf("%v: %v", r, e))
		switch e.Kind {
		case core.EffSend:
			c.sent[e.Msg.Kind()]++
			if !c.crashed.Has(e.To) {
				c.flight = append(c.flight, envelope{r, e.To, e.Msg})
			}
		case core.EffDeliver:
			c.deliv[r] = append(c.deliv[r], e.Value.(Delivery))
		case core.EffDecide:
			c.outs[r] = append(c.outs[r], e.Value.(Output).V)
		}
	}
}

func (c *cluster) start(r core.Rank) { c.t.Helper(); c.step(r, core.Call(Start{})) }

// pump fires r's PumpTimer until its outbox is empty.
func (c *cluster) pump(r core.Rank) {
	c.t.Helper()
	for c.nodes[r].armed {
		c.step(r, core.Timer(PumpTimer))
	}
}

// deliver delivers the first message in flight from → to.
func (c *cluster) deliver(from, to core.Rank) {
	c.t.Helper()
	for i, e := range c.flight {
		if e.from == from && e.to == to {
			c.flight = append(c.flight[:i:i], c.flight[i+1:]...)
			c.step(to, core.Receive(from, e.msg))
			return
		}
	}
	c.t.Fatalf("no message in flight %v → %v", from, to)
}

// drain delivers every message in flight (in order) and pumps every
// outbox, until nothing moves.
func (c *cluster) drain() {
	c.t.Helper()
	for moved := true; moved; {
		moved = false
		for r := range c.nodes {
			if !c.crashed.Has(core.Rank(r)) && c.nodes[r].armed {
				c.pump(core.Rank(r))
				moved = true
			}
		}
		if len(c.flight) > 0 {
			e := c.flight[0]
			c.deliver(e.from, e.to)
			moved = true
		}
	}
}

// crash stops r; messages in flight from it stay in flight (TCP delivers
// what was sent), unless lose.
func (c *cluster) crash(r core.Rank) {
	c.crashed.Add(r)
	var keep []envelope
	for _, e := range c.flight {
		if e.to != r {
			keep = append(keep, e)
		}
	}
	c.flight = keep
}

// notify reports q's death to every live replica.
func (c *cluster) notify(q core.Rank) {
	c.t.Helper()
	for r := range c.nodes {
		if !c.crashed.Has(core.Rank(r)) {
			c.step(core.Rank(r), core.Suspect(q))
		}
	}
}

func (c *cluster) node(r core.Rank) *Node { return c.nodes[r] }
