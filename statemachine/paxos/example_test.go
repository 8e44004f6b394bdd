package paxos_test

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/paxos"
)

// Example drives a group of three processes by hand, as a runtime would:
// each is a proposer, an acceptor and a learner, p0 coordinates. p0
// pre-executes phase 1, p2 proposes a command, and every message is
// delivered in the order sent; each learner decides instance 0, and p2's
// call returns.
func Example() {
	nodes, err := paxos.NewAll(paxos.Classic(3))
	if err != nil {
		panic(err)
	}
	type envelope struct {
		from, to core.Rank
		m        core.Message
	}
	var inflight []envelope
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
				fmt.Printf("%v decides %v in instance %d\n", p, e.Value, e.Instance)
			case core.EffReturn:
				fmt.Printf("%v: propose returns, chosen in instance %d\n", p, e.Instance)
			}
		}
	}
	deliver := func() {
		for len(inflight) > 0 {
			e := inflight[0]
			inflight = inflight[1:]
			step(e.to, core.Receive(e.from, e.m))
		}
	}
	step(0, core.Call(paxos.Lead{})) // phase 1, before any value
	deliver()
	fmt.Println(nodes[0])
	step(2, core.Call(paxos.Propose{Data: "x"}))
	deliver()
	fmt.Println(nodes[1])
	// Output:
	// paxos p0 leader=p0 promised=1 accepted=[] log=[] | coord b=1 from=0 slots=[]
	// p0 decides p2:"x" in instance 0
	// p1 decides p2:"x" in instance 0
	// p2 decides p2:"x" in instance 0
	// p2: propose returns, chosen in instance 0
	// paxos p1 leader=p0 promised=1 accepted=[0:b1=p2:"x"] log=[p2:"x"]
}
