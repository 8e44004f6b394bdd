package env

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// The toy protocols of these tests. flood: a call (a, v) sends v to every
// process (itself included); a process decides, and returns, the least
// value heard for a once it has called a and heard from every process it
// does not suspect. star: a call sends v to p0 only; p0 decides as above and
// sends DEC to everyone, who decide on receipt.

// in is the toy call: contribute V to instance A. Twice sends every message
// twice; V = 97 sends to an invalid rank, 98 fails, 99 panics.
type in struct {
	A     uint64
	V     int64
	Twice bool
}

func (x in) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, x.A)
	b = core.AppendInt(b, x.V)
	return core.AppendBool(b, x.Twice)
}

func (x in) String() string {
	if x.Twice {
		return fmt.Sprintf("Flood2(v=%d, a=%d)", x.V, x.A)
	}
	return fmt.Sprintf("Flood(v=%d, a=%d)", x.V, x.A)
}

type msg struct {
	A   uint64
	V   int64
	Dec bool
}

func (m msg) Kind() string {
	if m.Dec {
		return "DEC"
	}
	return "VAL"
}

func (m msg) AppendBinary(b []byte) []byte {
	b = core.AppendString(b, m.Kind())
	b = core.AppendUint(b, m.A)
	return core.AppendInt(b, m.V)
}

func (m msg) String() string { return fmt.Sprintf("%s(a=%d, v=%d)", m.Kind(), m.A, m.V) }

type val int64

func (v val) AppendBinary(b []byte) []byte { return core.AppendInt(b, int64(v)) }
func (v val) String() string               { return fmt.Sprint(int64(v)) }

type inst struct {
	a       uint64
	called  bool
	decided bool
	heard   []bool
	vals    []int64
}

type toy struct {
	star      bool
	me        core.Rank
	n         int
	suspected core.RankSet
	insts     []*inst // sorted by a
}

func newFlood(p core.Rank, n int) core.Machine { return &toy{me: p, n: n} }
func newStar(p core.Rank, n int) core.Machine  { return &toy{star: true, me: p, n: n} }

func (t *toy) Clone() core.Machine {
	c := *t
	c.suspected = t.suspected.Clone()
	c.insts = make([]*inst, len(t.insts))
	for i, x := range t.insts {
		y := *x
		y.heard = slices.Clone(x.heard)
		y.vals = slices.Clone(x.vals)
		c.insts[i] = &y
	}
	return &c
}

func (t *toy) inst(a uint64) *inst {
	i, ok := slices.BinarySearchFunc(t.insts, a, func(x *inst, a uint64) int {
		return int(x.a) - int(a)
	})
	if !ok {
		t.insts = slices.Insert(t.insts, i, &inst{a: a, heard: make([]bool, t.n), vals: make([]int64, t.n)})
	}
	return t.insts[i]
}

func (t *toy) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		x, ok := ev.Input.(in)
		if !ok {
			return out, fmt.Errorf("unknown input %v", ev.Input)
		}
		switch x.V {
		case 98:
			return out, errors.New("value 98 refused")
		case 99:
			panic("value 99")
		}
		s := t.inst(x.A)
		if s.called {
			return out, fmt.Errorf("call for a=%d made twice", x.A)
		}
		s.called = true
		m := msg{A: x.A, V: x.V}
		to := []core.Rank{0}
		if !t.star {
			to = to[:0]
			for q := range t.n {
				to = append(to, core.Rank(q))
			}
		}
		if x.V == 97 {
			to = []core.Rank{core.Rank(t.n)}
		}
		for _, q := range to {
			out = append(out, core.Send(q, m))
			if x.Twice {
				out = append(out, core.Send(q, m))
			}
		}
		return t.try(s, out), nil
	case core.EvReceive:
		m, ok := ev.Msg.(msg)
		if !ok || !ev.From.Valid(t.n) {
			return out, fmt.Errorf("bad message %v from %v", ev.Msg, ev.From)
		}
		s := t.inst(m.A)
		if m.Dec {
			if !s.decided {
				s.decided = true
				out = append(out, core.Decide(m.A, val(m.V)), core.Return(m.A, val(m.V)))
			}
			return out, nil
		}
		s.heard[ev.From], s.vals[ev.From] = true, m.V
		return t.try(s, out), nil
	case core.EvSuspect:
		t.suspected.Add(ev.Peer)
		for _, s := range t.insts {
			out = t.try(s, out)
		}
		return out, nil
	}
	return out, fmt.Errorf("unexpected event %v", ev)
}

func (t *toy) try(s *inst, out []core.Effect) []core.Effect {
	if s.decided || (t.star && t.me != 0) || !s.called && !t.star {
		return out
	}
	least, some := int64(0), false
	for q := range t.n {
		switch {
		case s.heard[q]:
			if !some || s.vals[q] < least {
				least, some = s.vals[q], true
			}
		case !t.suspected.Has(core.Rank(q)):
			return out
		}
	}
	if !some {
		return out
	}
	s.decided = true
	out = append(out, core.Decide(s.a, val(least)), core.Return(s.a, val(least)))
	if t.star {
		for q := range t.n {
			out = append(out, core.Send(core.Rank(q), msg{A: s.a, V: least, Dec: true}))
		}
	}
	return out
}

func (t *toy) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(t.me))
	b = t.suspected.AppendBinary(b)
	b = core.AppendUint(b, uint64(len(t.insts)))
	for _, s := range t.insts {
		b = core.AppendUint(b, s.a)
		b = core.AppendBool(b, s.called)
		b = core.AppendBool(b, s.decided)
		for q := range t.n {
			b = core.AppendBool(b, s.heard[q])
			b = core.AppendInt(b, s.vals[q])
		}
	}
	return b
}

func (t *toy) String() string {
	return fmt.Sprintf("%v suspects %v, %d instances", t.me, t.suspected, len(t.insts))
}

// one is the schedule alternative where process p calls (a=0, v=vals[p]).
func one(vals ...int64) [][]core.Input {
	out := make([][]core.Input, len(vals))
	for p, v := range vals {
		out[p] = []core.Input{in{V: v}}
	}
	return out
}

// floodConfig is flood at n processes, each proposing its rank, one crash.
func floodConfig(n int) Config {
	vals := make([]int64, n)
	for p := range vals {
		vals[p] = int64(p)
	}
	return Config{Name: "flood", N: n, Crashes: 1, NewNode: newFlood, Schedules: [][][]core.Input{one(vals...)}}
}
