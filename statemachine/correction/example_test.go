package correction_test

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/correction"
)

// A Corrected Tree broadcast on P = 4 processes, driven by hand: the
// interleaved binomial tree (p0 → p1, p2; p1 → p3), overlapped
// opportunistic correction with d = 1, and p1 failed from the start, so
// its child p3 is left to correction. A runtime steps one machine at a
// time with an event and carries out the effects it returns: it sends the
// messages (here: appends them to a FIFO, dropping those to p1), and fires
// TimerSendSlot when the process may send again (here: at once). p3,
// colored by p0's correction message, sends nothing: it takes no part in
// correction and has no children (§3.1, §3.3); p2's later message is
// masked.
func Example() {
	top, err := correction.NewTopology(correction.Tree{Kind: correction.BinomialInterleaved}, 4)
	if err != nil {
		panic(err)
	}
	cfg := &correction.Config{Topology: top, Correction: correction.Opportunistic, Distance: 1, Start: correction.Overlapped}
	nodes, err := correction.Nodes(cfg)
	if err != nil {
		panic(err)
	}
	failed := core.Rank(1)

	type envelope struct {
		from, to core.Rank
		msg      core.Message
	}
	var queue []envelope
	var slots []core.Rank // processes whose send slot is armed
	step := func(p core.Rank, ev core.Event) {
		out, err := nodes[p].Step(ev, nil)
		if err != nil {
			panic(err)
		}
		var did []string
		for _, e := range out {
			switch e.Kind {
			case core.EffSend:
				if e.To == failed {
					did = append(did, fmt.Sprintf("send %v to %v (lost)", e.Msg, e.To))
					continue
				}
				queue = append(queue, envelope{p, e.To, e.Msg})
				did = append(did, fmt.Sprintf("send %v to %v", e.Msg, e.To))
			case core.EffDeliver:
				did = append(did, fmt.Sprintf("deliver %v", e.Value))
			case core.EffSetTimer:
				slots = append(slots, p)
			}
		}
		what := ev.String()
		if ev.Kind == core.EvTimer && ev.Timer == correction.TimerSendSlot {
			what = "send slot"
		}
		if len(did) == 0 {
			did = []string{"nothing"}
		}
		fmt.Printf("%v %s: %s\n", p, what, strings.Join(did, ", "))
	}

	step(0, core.Call(correction.Broadcast{Value: 7}))
	for len(queue) > 0 || len(slots) > 0 {
		if len(slots) > 0 {
			p := slots[0]
			slots = slots[1:]
			step(p, core.Timer(correction.TimerSendSlot))
			continue
		}
		m := queue[0]
		queue = queue[1:]
		step(m.to, core.Receive(m.from, m.msg))
	}
	for _, m := range nodes {
		n := m.(*correction.Node)
		if n.Rank() != failed {
			fmt.Printf("%v colored by %v\n", n.Rank(), n.Via())
		}
	}
	// Output:
	// p0 call BROADCAST(v=7): deliver 7, send TREE(v=7) to p1 (lost), send TREE(v=7) to p2
	// p0 send slot: send CORRECTION(dir=left, v=7) to p3
	// p0 send slot: send CORRECTION(dir=right, v=7) to p1 (lost)
	// p2 recv TREE(v=7) from p0: deliver 7
	// p2 send slot: send CORRECTION(dir=left, v=7) to p1 (lost)
	// p2 send slot: send CORRECTION(dir=right, v=7) to p3
	// p3 recv CORRECTION(dir=left, v=7) from p0: deliver 7
	// p3 recv CORRECTION(dir=right, v=7) from p2: nothing
	// p0 colored by root
	// p2 colored by tree
	// p3 colored by correction
}
