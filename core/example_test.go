package core_test

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// num is the example's input, message payload and value.
type num uint64

func (n num) AppendBinary(b []byte) []byte { return core.AppendUint(b, uint64(n)) }
func (n num) String() string               { return fmt.Sprint(uint64(n)) }

// msg is the example's message: a contribution to the coordinator or its
// decision.
type msg struct {
	decide bool
	v      num
}

func (m msg) Kind() string {
	if m.decide {
		return "DECIDE"
	}
	return "VALUE"
}
func (m msg) AppendBinary(b []byte) []byte {
	if m.decide {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return m.v.AppendBinary(b)
}
func (m msg) String() string { return fmt.Sprintf("%s(%v)", m.Kind(), m.v) }

// gather is a toy coordinator protocol: every process calls Propose(v);
// the others send v to p0, p0 decides the maximum of the values of every
// process it does not suspect and sends it back; each process returns the
// decision. A process re-sends its value when its timer fires.
type gather struct {
	me, n    core.Rank
	mine     num
	proposed bool
	heard    core.RankSet // p0: processes whose value arrived (or that are suspected)
	best     num
	decided  bool
	resend   int // timers fired
}

const resendTimer = 1

func (g *gather) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		v, ok := ev.Input.(num)
		if !ok || g.proposed {
			return out, errors.New("gather: bad or repeated call")
		}
		g.mine, g.proposed = v, true
		if g.me != 0 {
			return append(out, core.Send(0, msg{v: v}), core.Effect{Kind: core.EffSetTimer, Timer: resendTimer, Delay: 10}), nil
		}
		g.heard.Add(0)
		g.best = max(g.best, v)
	case core.EvReceive:
		m, ok := ev.Msg.(msg)
		if !ok || !ev.From.Valid(int(g.n)) {
			return out, errors.New("gather: bad message")
		}
		if m.decide {
			g.decided = true
			return append(out, core.Return(0, m.v)), nil
		}
		g.heard.Add(ev.From)
		g.best = max(g.best, m.v)
	case core.EvSuspect:
		g.heard.Add(ev.Peer) // a crashed process is not waited for
	case core.EvTimer:
		if g.decided {
			return out, nil
		}
		g.resend++
		return append(out, core.Send(0, msg{v: g.mine})), nil
	default:
		return out, errors.New("gather: unknown event")
	}
	if g.me == 0 && g.proposed && !g.decided && g.heard.Len() == int(g.n) {
		g.decided = true
		out = append(out, core.Decide(0, g.best), core.Return(0, g.best))
		for q := core.Rank(1); q < g.n; q++ {
			out = append(out, core.Send(q, msg{decide: true, v: g.best}))
		}
	}
	return out, nil
}

func (g *gather) Clone() core.Machine { c := *g; c.heard = g.heard.Clone(); return &c }

func (g *gather) AppendBinary(b []byte) []byte {
	b = g.mine.AppendBinary(b)
	b = g.best.AppendBinary(b)
	b = g.heard.AppendBinary(b)
	b = core.AppendUint(b, uint64(g.resend))
	return append(b, boolByte(g.proposed), boolByte(g.decided))
}

func boolByte(x bool) byte {
	if x {
		return 1
	}
	return 0
}

func (g *gather) String() string {
	return fmt.Sprintf("%v best=%v decided=%v", g.me, g.best, g.decided)
}

// Example shows the embedding contract: a runtime owns one core.Machine
// per rank, feeds each one event at a time with Step (a call, a received
// message, a suspicion from its failure detector, a fired timer), and
// carries out the effects: it moves EffSend messages, arms EffSetTimer
// timers and hands decisions and returns to the application. Here p2 has
// crashed: it never calls, its messages are dropped, and once the network
// is idle the runtime fires the armed timers, then its failure detector
// reports p2 to p0.
func Example() {
	const n = 3
	nodes := make([]core.Machine, n)
	for r := range nodes {
		nodes[r] = &gather{me: core.Rank(r), n: n}
	}
	crashed := core.Rank(2)
	type envelope struct {
		to core.Rank
		ev core.Event
	}
	var queue []envelope // FIFO network
	var timers []envelope
	var effects []core.Effect
	step := func(p core.Rank, ev core.Event) {
		var err error
		effects, err = nodes[p].Step(ev, effects[:0])
		if err != nil {
			fmt.Println(p, "rejects", ev, ":", err)
			return
		}
		fmt.Printf("%v: %v\n", p, ev)
		for _, e := range effects {
			switch e.Kind {
			case core.EffSend:
				if e.To != crashed {
					queue = append(queue, envelope{e.To, core.Receive(p, e.Msg)})
				}
			case core.EffSetTimer:
				timers = append(timers, envelope{p, core.Timer(e.Timer)})
			}
			fmt.Printf("    %v\n", e)
		}
	}
	step(0, core.Call(num(5)))
	step(1, core.Call(num(7)))
	for round := 0; round < 3; round++ {
		for len(queue) > 0 {
			env := queue[0]
			queue = queue[1:]
			step(env.to, env.ev)
		}
		switch round {
		case 0: // idle: fire the armed timers
			fired := slices.Clone(timers)
			timers = timers[:0]
			for _, t := range fired {
				step(t.to, t.ev)
			}
		case 1: // idle again: the failure detector reports the crash
			step(0, core.Suspect(crashed))
		}
	}
	// A malformed event is an error, not a panic, and changes nothing.
	step(1, core.Call(num(9)))
	// Output:
	// p0: call 5
	// p1: call 7
	//     send VALUE(7) to p0
	//     set timer 1 after 10
	// p0: recv VALUE(7) from p1
	// p1: timer 1
	//     send VALUE(7) to p0
	// p0: recv VALUE(7) from p1
	// p0: p2 discovered dead
	//     decide a=0 v=7
	//     return a=0 v=7
	//     send DECIDE(7) to p1
	//     send DECIDE(7) to p2
	// p1: recv DECIDE(7) from p0
	//     return a=0 v=7
	// p1 rejects call 9 : gather: bad or repeated call
}
