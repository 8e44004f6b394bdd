package ownprotocol_test

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/props"
)

// ping is the call "p0, ping every other process" (instance A).
type ping struct{ A uint64 }

func (p ping) AppendBinary(b []byte) []byte { return core.AppendUint(b, p.A) }
func (p ping) String() string               { return fmt.Sprintf("Ping(a=%d)", p.A) }

// msg is PING(a) or its answer ECHO(a).
type msg struct {
	Echo bool
	A    uint64
}

func (m msg) Kind() string {
	if m.Echo {
		return "ECHO"
	}
	return "PING"
}
func (m msg) AppendBinary(b []byte) []byte {
	return core.AppendUint(core.AppendString(b, m.Kind()), m.A)
}
func (m msg) String() string { return fmt.Sprintf("%s(a=%d)", m.Kind(), m.A) }

// count is what Ping returns: the number of echoes from processes not
// suspected before their echo arrived.
type count uint64

func (c count) AppendBinary(b []byte) []byte { return core.AppendUint(b, uint64(c)) }
func (c count) String() string               { return fmt.Sprint(uint64(c)) }

// pinger is one process of the protocol: every process echoes each PING;
// p0's Ping returns once every other process has echoed or is suspected.
// The deaf variant ignores suspicions, and waits for an echo from the dead.
type pinger struct {
	me, n   core.Rank
	deaf    bool
	called  bool
	a       uint64
	settled core.RankSet // echoed or suspected
	echoes  count
	done    bool
}

func (p *pinger) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		in, ok := ev.Input.(ping)
		if !ok || p.called || p.me != 0 {
			return out, fmt.Errorf("%v cannot call %v", p.me, ev.Input)
		}
		p.called, p.a = true, in.A
		for q := range p.n {
			if q != p.me {
				out = append(out, core.Send(q, msg{A: in.A}))
			}
		}
	case core.EvReceive:
		m, ok := ev.Msg.(msg)
		if !ok {
			return out, fmt.Errorf("unknown message %v", ev.Msg)
		}
		if !m.Echo {
			return append(out, core.Send(ev.From, msg{Echo: true, A: m.A})), nil
		}
		if !p.settled.Has(ev.From) {
			p.settled.Add(ev.From)
			p.echoes++
		}
	case core.EvSuspect:
		if !p.deaf {
			p.settled.Add(ev.Peer)
		}
	default:
		return out, fmt.Errorf("unexpected event %v", ev)
	}
	if p.called && !p.done && p.settled.Len() == int(p.n)-1 {
		p.done = true
		out = append(out, core.Return(p.a, p.echoes))
	}
	return out, nil
}

func (p *pinger) Clone() core.Machine {
	c := *p
	c.settled = p.settled.Clone()
	return &c
}

func (p *pinger) AppendBinary(b []byte) []byte {
	b = core.AppendBool(b, p.called)
	b = core.AppendUint(b, p.a)
	b = p.settled.AppendBinary(b)
	b = core.AppendUint(b, uint64(p.echoes))
	return core.AppendBool(b, p.done)
}

func (p *pinger) String() string {
	return fmt.Sprintf("%v settled=%v echoes=%d done=%v", p.me, p.settled, p.echoes, p.done)
}

// check explores every run of 3 pingers, any one of which may crash, where
// p0 calls Ping(a=7), and prints the verdict of Termination.
func check(deaf bool) {
	termination := props.Termination("termination", "every live caller of Ping returns", "Ping",
		func(in core.Input) (uint64, bool) { return in.(ping).A, true })
	m, err := env.New(env.Config{
		Name: "ping", N: 3, Crashes: 1,
		NewNode: func(p core.Rank, n int) core.Machine {
			return &pinger{me: p, n: core.Rank(n), deaf: deaf}
		},
		Schedules:  [][][]core.Input{{{ping{A: 7}}, nil, nil}},
		Properties: []checker.Property[*env.World]{termination},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res := checker.BFS[*env.World](m, checker.Options{Workers: 1})
	switch {
	case res.Err != nil:
		fmt.Println(res.Err)
	case len(res.Violations) > 0:
		tr := res.Violations[0]
		fmt.Printf("%s violated after %d steps: %s\n", tr.Violation.Property, len(tr.Steps), tr.Violation.Message)
		for _, st := range tr.Steps {
			fmt.Println(" ", st.Text)
		}
	default:
		fmt.Printf("%d states, complete=%v: every property holds\n", res.States, res.Complete)
	}
}

// Example checks a protocol written outside this module: its nodes are
// core.Machines, env.New puts N of them in an asynchronous network with
// crashes and a perfect failure detector, props gives the property, and
// checker.BFS explores every interleaving. The deaf variant, which ignores
// the failure detector, is caught with a shortest counterexample.
func Example() {
	check(false)
	check(true)
	// Output:
	// 130 states, complete=true: every property holds
	// termination violated after 6 steps: p0 is alive, called Ping(a=7) and never returned, yet nothing is left to deliver, detect or call
	//   p1 crashes
	//   p0 learns p1 is dead
	//   p2 learns p1 is dead
	//   p0 calls Ping(a=7) → sends PING(a=7) to p1, p2
	//   p2 receives PING(a=7) from p0 → sends ECHO(a=7) to p0
	//   p0 receives ECHO(a=7) from p2
}
