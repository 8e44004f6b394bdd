package era_test

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/era"
)

// Example drives a 4-process agreement by hand, as a runtime would: it
// calls Agreement(v, 0) at every process, carries out every EffSend by
// giving the message to its destination, reports a failure to the
// processes that must learn of it, and prints the decisions. The binary
// tree of N = 4 is p0 ← p1 ← {p2, p3}; p3 contributes, then crashes before
// its UP is delivered.
func Example() {
	const n = 4
	cfg := era.Config{N: n} // binary tree, AND of flags
	nodes := make([]*era.Node, n)
	for p := range nodes {
		nodes[p], _ = era.New(core.Rank(p), cfg)
	}
	type envelope struct {
		from, to core.Rank
		m        core.Message
	}
	var inflight []envelope
	crashed := map[core.Rank]bool{}
	// step applies one event at p and carries out its effects.
	step := func(p core.Rank, ev core.Event) {
		effs, err := nodes[p].Step(ev, nil)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		for _, e := range effs {
			switch e.Kind {
			case core.EffSend:
				inflight = append(inflight, envelope{p, e.To, e.Msg})
			case core.EffDecide:
				fmt.Printf("%v decides %v\n", p, e.Value)
			case core.EffReturn:
				fmt.Printf("%v returns %v\n", p, e.Value)
			}
		}
	}
	// deliver hands every message in flight to a live destination.
	deliver := func() {
		for len(inflight) > 0 {
			e := inflight[0]
			inflight = inflight[1:]
			if crashed[e.from] || crashed[e.to] {
				fmt.Printf("%v to %v lost\n", e.m, e.to)
				continue
			}
			fmt.Printf("%v → %v: %v\n", e.from, e.to, e.m)
			step(e.to, core.Receive(e.from, e.m))
		}
	}

	flags := []era.Flag{0b1111, 0b0111, 0b1011, 0b1101}
	for _, p := range []core.Rank{3, 2, 1} {
		step(p, core.Call(era.Contribute{A: 0, V: flags[p]}))
	}
	crashed[3] = true // p3 dies; its UP to p1 is lost
	deliver()
	// The failure detector tells p1 (and the others) that p3 died: p1 no
	// longer waits for it and sends the contribution of its subtree up.
	for _, p := range []core.Rank{0, 1, 2} {
		step(p, core.Suspect(3))
	}
	step(0, core.Call(era.Contribute{A: 0, V: flags[0]}))
	deliver()
	fmt.Println("p1 parent", nodes[1].Parent(), "children", nodes[1].Children())
	// Output:
	// UP(a=0, v=0xd) to p1 lost
	// p2 → p1: UP(a=0, v=0xb)
	// p1 → p0: UP(a=0, v=0x3)
	// p0 decides 0x3
	// p0 returns 0x3
	// p0 → p1: DOWN(a=0, v=0x3)
	// p1 decides 0x3
	// p1 returns 0x3
	// p1 → p2: DOWN(a=0, v=0x3)
	// p2 decides 0x3
	// p2 returns 0x3
	// p1 parent p0 children {p2}
}
