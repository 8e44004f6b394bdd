package props

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// num is the toy's value, input and message: one number.
type num uint64

func (n num) AppendBinary(b []byte) []byte { return core.AppendUint(b, uint64(n)) }
func (n num) String() string               { return strconv.FormatUint(uint64(n), 10) }
func (n num) Kind() string                 { return "num" }

// toy is a broadcast-and-decide machine with knobs for breaking it:
// a call num(v) delivers v (instance v), sends v to every other process and
// decides v+skew for instance 0 and returns; receiving v delivers v (and
// twice with dup). Its state is its sent count and delivered list.
type toy struct {
	me, n     core.Rank
	skew      num
	dup       bool
	sent      int
	delivered []num
}

func (t *toy) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		v, ok := ev.Input.(num)
		if !ok {
			return out, fmt.Errorf("toy: input %T", ev.Input)
		}
		t.delivered = append(t.delivered, v)
		out = append(out, core.Deliver(uint64(v), v), core.Decide(0, v+t.skew), core.Return(0, v+t.skew))
		for q := core.Rank(0); q < t.n; q++ {
			if q != t.me {
				out = append(out, core.Send(q, v))
				t.sent++
			}
		}
	case core.EvReceive:
		v, ok := ev.Msg.(num)
		if !ok {
			return out, fmt.Errorf("toy: message %T", ev.Msg)
		}
		t.delivered = append(t.delivered, v)
		out = append(out, core.Deliver(uint64(v), v))
		if t.dup {
			out = append(out, core.Deliver(uint64(v), v))
		}
	}
	return out, nil
}

func (t *toy) Clone() core.Machine {
	c := *t
	c.delivered = append([]num(nil), t.delivered...)
	return &c
}

func (t *toy) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(t.sent))
	b = core.AppendUint(b, uint64(len(t.delivered)))
	for _, v := range t.delivered {
		b = v.AppendBinary(b)
	}
	return b
}

func (t *toy) String() string { return fmt.Sprintf("toy sent=%d delivered=%v", t.sent, t.delivered) }

// toyCase is one toy environment: calls[p] are p's inputs, in order.
type toyCase struct {
	calls   [][]num
	network env.Network
	crashes int
	skew    num
	dup     bool
}

// check runs breadth-first search of the toy with the one property p and
// returns the violated property's error text ("" if none); the search must
// complete when nothing is violated.
func (c toyCase) check(t *testing.T, p checker.Property[*env.World]) string {
	t.Helper()
	n := len(c.calls)
	sched := make([][]core.Input, n)
	for q, vs := range c.calls {
		for _, v := range vs {
			sched[q] = append(sched[q], v)
		}
	}
	m, err := env.New(env.Config{Name: "toy", N: n, Crashes: c.crashes, Network: c.network,
		NewNode: func(r core.Rank, n int) core.Machine {
			return &toy{me: r, n: core.Rank(n), skew: c.skew, dup: c.dup}
		},
		Schedules: [][][]core.Input{sched}, Properties: []checker.Property[*env.World]{p}})
	if err != nil {
		t.Fatal(err)
	}
	res := checker.BFS[*env.World](m, checker.Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(res.Violations) > 0 {
		return res.Violations[0].Violation.String()
	}
	if !res.Complete {
		t.Fatalf("%s: search incomplete after %d states", p.Name, res.States)
	}
	return ""
}
