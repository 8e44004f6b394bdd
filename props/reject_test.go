package props

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// script is one call of a scripted process: the call emits effs, makes the
// process suspect the ranks of suspect, and sets react, the effects the
// process emits on each later receive or suspicion. in is the call's
// input value (instance in.a), read by scriptInput. id tells the calls
// apart in the environment's step memo.
type script struct {
	id      int
	in      num
	a       uint64
	effs    []core.Effect
	react   []core.Effect
	suspect []core.Rank
}

func (s *script) AppendBinary(b []byte) []byte { return core.AppendUint(b, uint64(s.id)) }
func (s *script) String() string               { return fmt.Sprintf("script%d", s.id) }

// scripted is a machine that does what its calls say. A received num v is
// delivered (instance v) before the reaction; a suspicion adds the peer to
// suspected. Its state is its send count, suspicions and reaction.
type scripted struct {
	sent      int
	suspected core.RankSet
	react     []core.Effect
	reactID   int
}

func (m *scripted) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	start := len(out)
	switch ev.Kind {
	case core.EvCall:
		s := ev.Input.(*script)
		out = append(out, s.effs...)
		for _, q := range s.suspect {
			m.suspected.Add(q)
		}
		if s.react != nil {
			m.react, m.reactID = s.react, s.id
		}
	case core.EvReceive:
		v := ev.Msg.(num)
		out = append(out, core.Deliver(uint64(v), v))
		out = append(out, m.react...)
	case core.EvSuspect:
		m.suspected.Add(ev.Peer)
		out = append(out, m.react...)
	}
	for _, e := range out[start:] {
		if e.Kind == core.EffSend {
			m.sent++
		}
	}
	return out, nil
}

func (m *scripted) Clone() core.Machine {
	c := *m
	c.suspected = m.suspected.Clone()
	return &c
}

func (m *scripted) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(m.sent))
	b = core.AppendUint(b, uint64(m.reactID))
	return m.suspected.AppendBinary(b)
}

func (m *scripted) String() string {
	return fmt.Sprintf("scripted sent=%d suspects %v", m.sent, m.suspected)
}

// op is one step of a synthetic run.
type op struct {
	kind uint8
	p, q core.Rank
}

// call: p makes its next scripted call; crash: p crashes; detect: p is
// told that q crashed; recv: p receives the first message from q.
func call(p core.Rank) op      { return op{kind: env.Call, p: p} }
func crash(p core.Rank) op     { return op{kind: env.Crash, p: p} }
func detect(p, q core.Rank) op { return op{kind: env.Detect, p: p, q: q} }
func recv(p, q core.Rank) op   { return op{kind: env.Deliver, p: p, q: q} }

// run is a synthetic run: n processes, calls[p] the scripts of p in
// order, and the steps taken.
type run struct {
	n     int
	calls map[core.Rank][]*script
	steps []op
}

// worlds builds r's worlds (the initial one first) and actions, in an
// environment with the perfect detector and a crash budget of n.
func (r run) worlds(t *testing.T) ([]*env.World, []checker.Action) {
	t.Helper()
	sched := make([][]core.Input, r.n)
	id := 0
	for p := range core.Rank(r.n) {
		for _, s := range r.calls[p] {
			id++
			s.id = id
			sched[p] = append(sched[p], s)
		}
	}
	m, err := env.New(env.Config{Name: "scripted", N: r.n, Crashes: r.n, Schedules: [][][]core.Input{sched},
		NewNode: func(core.Rank, int) core.Machine { return &scripted{} }})
	if err != nil {
		t.Fatal(err)
	}
	ws := []*env.World{m.Init()[0]}
	var as []checker.Action
	for _, o := range r.steps {
		a := checker.Action{Kind: o.kind, P: int32(o.p), Q: int32(o.q)}
		if o.kind == env.Call || o.kind == env.Crash {
			a.Q = 0
		}
		w, err := m.Apply(ws[len(ws)-1], a)
		if err != nil {
			t.Fatalf("step %d (%s): %v", len(as), m.Describe(ws[len(ws)-1], a), err)
		}
		ws, as = append(ws, w), append(as, a)
	}
	return ws, as
}

// verdict evaluates p on r: a transition property on every step, any
// other property in the last world (taken as quiescent).
func verdict(t *testing.T, p checker.Property[*env.World], r run) error {
	t.Helper()
	ws, as := r.worlds(t)
	if p.Kind != checker.Transition {
		return p.Check(ws[len(ws)-1])
	}
	for i, a := range as {
		if err := p.CheckStep(ws[i], a, ws[i+1]); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	return nil
}

// Effect shorthands.
func dec(a uint64, v num) core.Effect                 { return core.Decide(a, v) }
func ret(a uint64, v num) core.Effect                 { return core.Return(a, v) }
func dlv(a uint64, v num) core.Effect                 { return core.Deliver(a, v) }
func snd(to core.Rank, v num) core.Effect             { return core.Send(to, v) }
func calls(e ...core.Effect) *script                  { return &script{effs: e} }
func input(a uint64, v num, e ...core.Effect) *script { return &script{a: a, in: v, effs: e} }

// scriptInput is p's input for instance a: the value of its first call
// for a.
func scriptInput(w *env.World, q core.Rank, a uint64) (core.Value, bool) {
	for _, in := range w.CallsMade(q) {
		if s := in.(*script); s.a == a && s.in != 0 {
			return s.in, true
		}
	}
	return nil, false
}

func scriptedSuspects(w *env.World, p, q core.Rank) bool {
	return w.Node(p).(*scripted).suspected.Has(q)
}

// rejectCase is one synthetic run and the verdict a constructor must give:
// bad empty for a run it must accept, otherwise words its error must
// contain (the processes it names).
type rejectCase struct {
	name string
	r    run
	bad  []string
}

func checkCases(t *testing.T, p checker.Property[*env.World], cases []rejectCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(p.Name+"/"+c.name, func(t *testing.T) {
			err := verdict(t, p, c.r)
			switch {
			case c.bad == nil && err != nil:
				t.Errorf("%s rejects a run it must accept: %v", p.Name, err)
			case c.bad != nil && err == nil:
				t.Errorf("%s accepts a run it must reject (want an error naming %v)", p.Name, c.bad)
			case c.bad != nil:
				for _, w := range c.bad {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s: error %q does not name %q", p.Name, err, w)
					}
				}
			}
		})
	}
}

// decides is a run of n processes where each listed process calls once,
// deciding v for instance 0, in the order given.
func decides(n int, order ...any) run {
	r := run{n: n, calls: map[core.Rank][]*script{}}
	for i := 0; i < len(order); i += 2 {
		p, v := order[i].(core.Rank), order[i+1].(num)
		r.calls[p] = append(r.calls[p], calls(dec(0, v)))
		r.steps = append(r.steps, call(p))
	}
	return r
}

// then appends steps.
func (r run) then(ops ...op) run {
	r.steps = append(append([]op(nil), r.steps...), ops...)
	return r
}

// crashFirst puts crashes before r's steps.
func (r run) crashFirst(ps ...core.Rank) run {
	var ops []op
	for _, p := range ps {
		ops = append(ops, crash(p))
	}
	r.steps = append(ops, r.steps...)
	return r
}

func TestRejectAgreement(t *testing.T) {
	checkCases(t, Agreement("agreement", "", false, nil), []rejectCase{
		{"first then last differ", decides(3, core.Rank(0), num(1), core.Rank(2), num(2)), []string{"p0", "p2"}},
		{"last then first differ", decides(3, core.Rank(2), num(1), core.Rank(0), num(2)), []string{"p0", "p2"}},
		{"adjacent pair", decides(2, core.Rank(1), num(1), core.Rank(0), num(2)), []string{"p0", "p1"}},
		{"middle then last", decides(3, core.Rank(1), num(1), core.Rank(2), num(2)), []string{"p1", "p2"}},
		{"first and last agree", decides(3, core.Rank(0), num(1), core.Rank(2), num(1), core.Rank(1), num(1)), nil},
		{"the dead first rank differs", decides(3, core.Rank(0), num(1)).then(crash(0), call(2)).withCall(2, calls(dec(0, 2))), nil},
		{"the dead last rank differs", decides(3, core.Rank(2), num(1)).then(crash(2), call(0)).withCall(0, calls(dec(0, 2))), nil},
		{"other instances", run{n: 3, calls: map[core.Rank][]*script{0: {calls(dec(1, 1))}, 2: {calls(dec(2, 2))}},
			steps: []op{call(0), call(2)}}, nil},
	})
	checkCases(t, Agreement("uniform-agreement", "", true, nil), []rejectCase{
		{"first, crashed, and last", decides(3, core.Rank(0), num(1)).then(crash(0), call(2)).withCall(2, calls(dec(0, 2))), []string{"p0", "p2"}},
		{"last, crashed, and first", decides(3, core.Rank(2), num(1)).then(crash(2), call(0)).withCall(0, calls(dec(0, 2))), []string{"p0", "p2"}},
		{"first pair only", decides(3, core.Rank(1), num(1), core.Rank(0), num(2)), []string{"p0", "p1"}},
		{"last pair only", decides(3, core.Rank(2), num(1), core.Rank(1), num(2)), []string{"p1", "p2"}},
		{"all agree, one dead", decides(3, core.Rank(2), num(1), core.Rank(0), num(1)).then(crash(2)), nil},
	})
}

// withCall appends a call script for p.
func (r run) withCall(p core.Rank, s *script) run {
	c := map[core.Rank][]*script{}
	for q, ss := range r.calls {
		c[q] = append([]*script(nil), ss...)
	}
	c[p] = append(c[p], s)
	r.calls = c
	return r
}

func TestRejectIrrevocability(t *testing.T) {
	twice := func(n int, p core.Rank, e1, e2 core.Effect) run {
		return run{n: n, calls: map[core.Rank][]*script{p: {calls(e1), calls(e2)}}, steps: []op{call(p), call(p)}}
	}
	checkCases(t, Irrevocability("irrevocability", "", nil, nil), []rejectCase{
		{"first rank decides anew", twice(3, 0, dec(0, 1), dec(0, 2)), []string{"p0", "decided 1", "decided 2"}},
		{"last rank decides anew", twice(3, 2, dec(0, 1), dec(0, 2)), []string{"p2"}},
		{"last rank returns anew", twice(3, 2, ret(4, 1), ret(4, 2)), []string{"p2", "returned"}},
		{"same decision twice", twice(3, 2, dec(0, 1), dec(0, 1)), nil},
		{"two instances", twice(3, 0, dec(0, 1), dec(1, 2)), nil},
		{"a decision and a different return", twice(3, 0, dec(0, 1), ret(0, 2)), nil},
		{"first and last differ", decides(3, core.Rank(0), num(1), core.Rank(2), num(2)), nil},
		{"last and first differ", decides(3, core.Rank(2), num(1), core.Rank(0), num(2)), nil},
	})
	last := Irrevocability("irrevocability", "", nil, func(w *env.World, p core.Rank) error {
		if int(p) == w.N()-1 || p == 0 {
			return fmt.Errorf("%v lost its decision", p)
		}
		return nil
	})
	checkCases(t, last, []rejectCase{
		{"kept fails at the last rank", decides(3, core.Rank(1), num(1), core.Rank(2), num(1)), []string{"p2 lost"}},
		{"kept fails at the first rank", decides(3, core.Rank(1), num(1), core.Rank(0), num(1)), []string{"p0 lost"}},
		{"kept holds in the middle", decides(3, core.Rank(1), num(1)), nil},
	})
}

func TestRejectValidity(t *testing.T) {
	in3 := func(order []core.Rank, decider core.Rank, v num, crashed ...core.Rank) run {
		r := run{n: 3, calls: map[core.Rank][]*script{}}
		for _, p := range order {
			s := input(0, num(p)+1)
			if p == decider {
				s.effs = []core.Effect{dec(0, v)}
			}
			r.calls[p] = []*script{s}
			r.steps = append(r.steps, call(p))
		}
		return r.crashFirst(crashed...)
	}
	crashLater := func(r run, p core.Rank) run {
		// p crashes right after its own call.
		var steps []op
		for _, o := range r.steps {
			steps = append(steps, o)
			if o.kind == env.Call && o.p == p {
				steps = append(steps, crash(p))
			}
		}
		r.steps = steps
		return r
	}
	checkCases(t, Validity("validity", "", scriptInput, nil, nil), []rejectCase{
		{"first rank decides no input", in3([]core.Rank{1, 2, 0}, 0, 9), []string{"p0 decided 9"}},
		{"last rank decides no input", in3([]core.Rank{0, 1, 2}, 2, 9), []string{"p2 decided 9"}},
		{"first rank decides the last's input", in3([]core.Rank{2, 1, 0}, 0, 3), nil},
		{"last rank decides the first's input", in3([]core.Rank{0, 1, 2}, 2, 1), nil},
		{"the input of a crashed last rank", crashLater(in3([]core.Rank{2, 0}, 0, 3), 2), nil},
	})
	checkCases(t, Validity("validity-join", "", scriptInput, maxNum, nil), []rejectCase{
		{"live last rank has not contributed", in3([]core.Rank{0, 1}, 1, 2), []string{"p1 decided", "p2 is alive"}},
		{"live first rank has not contributed", in3([]core.Rank{1, 2}, 2, 3), []string{"p2 decided", "p0 is alive"}},
		{"not the join", in3([]core.Rank{0, 1, 2}, 2, 2), []string{"p2 decided 2"}},
		{"the join, first rank decides", in3([]core.Rank{1, 2, 0}, 0, 3), nil},
		{"the join, last rank decides", in3([]core.Rank{0, 1, 2}, 2, 3), nil},
		{"crashed last rank left out", in3([]core.Rank{0, 1}, 1, 2, 2), nil},
		{"crashed first rank left out", in3([]core.Rank{1, 2}, 2, 3, 0), nil},
		{"crashed last rank's larger input left out", crashLater(in3([]core.Rank{2, 0, 1}, 1, 2), 2), nil},
		{"crashed first rank's smaller input in", crashLater(in3([]core.Rank{0, 2, 1}, 1, 3), 0), nil},
	})
	on := OnDecisions("participation", "", checker.ReadsStep, func(w *env.World, p core.Rank, e core.Effect) error {
		if e.Value == num(9) {
			return fmt.Errorf("%v decided 9", p)
		}
		return nil
	})
	checkCases(t, on, []rejectCase{
		{"last rank's second decision", run{n: 3, calls: map[core.Rank][]*script{2: {calls(dec(0, 1), dec(1, 9))}}, steps: []op{call(2)}}, []string{"p2 decided 9"}},
		{"first rank", decides(3, core.Rank(0), num(9)), []string{"p0 decided 9"}},
		{"a return of 9 is no decision", run{n: 3, calls: map[core.Rank][]*script{2: {calls(ret(0, 9))}}, steps: []op{call(2)}}, nil},
	})
}

// broadcast is a run of n processes where p calls, delivering 1 (with
// deliver) and sending it to every other process, and the others receive
// it in the order given.
func broadcast(n int, p core.Rank, deliver bool, receivers ...core.Rank) run {
	var effs []core.Effect
	if deliver {
		effs = append(effs, dlv(1, 1))
	}
	for q := range core.Rank(n) {
		if q != p {
			effs = append(effs, snd(q, 1))
		}
	}
	r := run{n: n, calls: map[core.Rank][]*script{p: {calls(effs...)}}, steps: []op{call(p)}}
	for _, q := range receivers {
		r.steps = append(r.steps, recv(q, p))
	}
	return r
}

func TestRejectIntegrity(t *testing.T) {
	checkCases(t, Integrity("integrity", "", IntegrityRules{}), []rejectCase{
		{"first rank delivers on its call", broadcast(3, 0, true), []string{"p0 delivered on a call"}},
		{"last rank delivers on its call", broadcast(3, 2, true), []string{"p2 delivered on a call"}},
		{"deliveries by messages, first to last", broadcast(3, 0, false, 2, 1), nil},
		{"deliveries by messages, last to first", broadcast(3, 2, false, 0, 1), nil},
		{"last rank delivers on a suspicion", run{n: 3, calls: map[core.Rank][]*script{2: {{react: []core.Effect{dlv(5, 5)}}}},
			steps: []op{call(2), crash(0), detect(2, 0)}}, []string{"p2 delivered by a detect action"}},
	})
	onlyFirst := IntegrityRules{
		CallOK: func(p core.Rank) error {
			if p != 0 {
				return fmt.Errorf("%v delivered on a call, but only p0 broadcasts", p)
			}
			return nil
		},
		SendOK: func(w *env.World, p core.Rank) error {
			if int(p) == w.N()-1 && len(w.History(p)) == 0 {
				return fmt.Errorf("%v sent without the message", p)
			}
			return nil
		},
		Delivered: "was colored",
	}
	checkCases(t, Integrity("integrity-call-rules", "", onlyFirst), []rejectCase{
		{"first rank delivers on its call", broadcast(3, 0, true, 1, 2), nil},
		{"last rank delivers on its call", broadcast(3, 2, true), []string{"only p0 broadcasts"}},
		{"last rank sends without the message", broadcast(3, 2, false), []string{"p2 sent without"}},
		{"last rank forwards what it received", broadcast(3, 0, true, 2).withCall(2, calls(snd(1, 1))).then(call(2)), nil},
		{"the verb", run{n: 3, calls: map[core.Rank][]*script{0: {{react: []core.Effect{dlv(5, 5)}}}},
			steps: []op{call(0), crash(2), detect(0, 2)}}, []string{"p0 was colored by a detect action"}},
	})
}

// delivers is a run where each listed process calls once, delivering the
// given instances (value = instance), in the order given.
func delivers(n int, per map[core.Rank][]uint64, order ...core.Rank) run {
	r := run{n: n, calls: map[core.Rank][]*script{}}
	for _, p := range order {
		var effs []core.Effect
		for _, a := range per[p] {
			effs = append(effs, dlv(a, num(a)))
		}
		r.calls[p] = []*script{calls(effs...)}
		r.steps = append(r.steps, call(p))
	}
	return r
}

func TestRejectNoDuplicates(t *testing.T) {
	checkCases(t, NoDuplicates("no-duplicates", ""), []rejectCase{
		{"first rank", delivers(3, map[core.Rank][]uint64{0: {1, 1}}, 0), []string{"p0 delivered 2 times for instance 1"}},
		{"last rank", delivers(3, map[core.Rank][]uint64{2: {1, 2, 1}, 0: {1}}, 0, 2), []string{"p2 delivered 2 times"}},
		{"crashed last rank", delivers(3, map[core.Rank][]uint64{2: {0, 0}}, 2).then(crash(2)), []string{"p2 delivered 2 times"}},
		{"instance 0", delivers(3, map[core.Rank][]uint64{2: {0, 0}}, 2), []string{"p2 delivered 2 times"}},
		{"once each, first and last", delivers(3, map[core.Rank][]uint64{0: {1, 2}, 2: {2, 1}}, 2, 0), nil},
	})
	payload := Deliveries("payload", "", func(_ *env.World, p core.Rank, r env.Record) error {
		if r.Value == num(7) {
			return fmt.Errorf("%v delivered %v", p, r.Value)
		}
		return nil
	})
	checkCases(t, payload, []rejectCase{
		{"crashed first rank", delivers(3, map[core.Rank][]uint64{0: {1, 7}}, 0).then(crash(0)), []string{"p0 delivered 7"}},
		{"last rank", delivers(3, map[core.Rank][]uint64{2: {7}, 0: {1}}, 0, 2), []string{"p2 delivered 7"}},
		{"good payloads", delivers(3, map[core.Rank][]uint64{0: {1}, 2: {2}}, 0, 2), nil},
		{"a decision of 7 is no delivery", decides(3, core.Rank(2), num(7)), nil},
	})
}

func TestRejectTotalOrder(t *testing.T) {
	checkCases(t, TotalOrder("total-order", "", nil), []rejectCase{
		{"last rank the other way", delivers(3, map[core.Rank][]uint64{0: {1, 2}, 1: {1, 2}, 2: {2, 1}}, 0, 1, 2), []string{"p2 the other way"}},
		{"first rank the other way", delivers(3, map[core.Rank][]uint64{0: {2, 1}, 1: {1, 2}, 2: {1, 2}}, 0, 1, 2), []string{"p0 delivered 2 before 1"}},
		{"first and last only", delivers(3, map[core.Rank][]uint64{0: {1, 3, 2}, 2: {2, 1}}, 2, 0), []string{"p0", "p2 the other way"}},
		{"last pair only", delivers(4, map[core.Rank][]uint64{2: {1, 2}, 3: {2, 1}}, 3, 2), []string{"p2 delivered 1 before 2, p3"}},
		{"two processes", delivers(2, map[core.Rank][]uint64{0: {1, 2}, 1: {2, 1}}, 1, 0), []string{"p0", "p1"}},
		{"a crashed last rank counts", delivers(3, map[core.Rank][]uint64{0: {1, 2}, 2: {2, 1}}, 0, 2).then(crash(2)), []string{"p2"}},
		{"same order, gaps", delivers(3, map[core.Rank][]uint64{0: {1, 2, 3}, 1: {2}, 2: {1, 4, 3}}, 0, 1, 2), nil},
		{"repeat after", delivers(3, map[core.Rank][]uint64{0: {1, 2, 1}, 2: {1, 2}}, 2, 0), nil},
	})
}

func TestRejectBoundedMessages(t *testing.T) {
	sends := func(w *env.World, p core.Rank) (int, int, bool) {
		return w.Node(p).(*scripted).sent, 2, int(p) != 1
	}
	many := func(p core.Rank, k int) run {
		var effs []core.Effect
		for range k {
			effs = append(effs, snd((p+1)%3, 1))
		}
		return run{n: 3, calls: map[core.Rank][]*script{p: {calls(effs...)}}, steps: []op{call(p)}}
	}
	checkCases(t, BoundedMessages("bounded", "", sends), []rejectCase{
		{"first rank over", many(0, 3), []string{"p0 sent 3 messages, over the bound 2"}},
		{"last rank over", many(2, 3), []string{"p2 sent 3"}},
		{"crashed last rank over", many(2, 3).then(crash(2)), []string{"p2 sent 3"}},
		{"first and last at the bound", many(0, 2).withCall(2, calls(snd(0, 1), snd(0, 1))).then(call(2)), nil},
		{"a skipped rank over", many(1, 5), nil},
	})
}

func TestRejectTermination(t *testing.T) {
	inst := func(in core.Input) (uint64, bool) { s := in.(*script); return s.a, s.a != 99 }
	call7 := func(p core.Rank, returns bool) *script {
		s := input(7, 1)
		if returns {
			s.effs = []core.Effect{ret(7, 1)}
		}
		return s
	}
	r := func(first, last bool) run {
		return run{n: 3, calls: map[core.Rank][]*script{0: {call7(0, first)}, 1: {call7(1, true)}, 2: {call7(2, last)}},
			steps: []op{call(2), call(1), call(0)}}
	}
	checkCases(t, Termination("termination", "", "Call", inst), []rejectCase{
		{"first rank never returns", r(false, true), []string{"p0 is alive, called Call(a=7)"}},
		{"last rank never returns", r(true, false), []string{"p2 is alive"}},
		{"crashed first rank", r(false, true).then(crash(0)), nil},
		{"crashed last rank", r(true, false).then(crash(2)), nil},
		{"every call returns", r(true, true), nil},
		{"a return for another instance", run{n: 3, calls: map[core.Rank][]*script{2: {{a: 7, effs: []core.Effect{ret(8, 1)}}}}, steps: []op{call(2)}}, []string{"p2"}},
		{"a call with no return", run{n: 3, calls: map[core.Rank][]*script{2: {{a: 99}}}, steps: []op{call(2)}}, nil},
	})
	done := func(w *env.World, p core.Rank) bool { return len(w.History(p)) > 0 }
	checkCases(t, LiveDone("liveness", "", "without the message", done), []rejectCase{
		{"first rank missing", broadcast(3, 2, true, 1), []string{"live processes [p0]"}},
		{"last rank missing", broadcast(3, 0, true, 1), []string{"live processes [p2]"}},
		{"first rank crashed", broadcast(3, 2, true, 1).then(crash(0)), nil},
		{"last rank crashed", broadcast(3, 0, true, 1).then(crash(2)), nil},
		{"everyone", broadcast(3, 0, true, 2, 1), nil},
	})
}

// accuses is a run where p calls once, suspecting qs.
func accuses(n int, p core.Rank, qs ...core.Rank) run {
	return run{n: n, calls: map[core.Rank][]*script{p: {{suspect: qs}}}, steps: []op{call(p)}}
}

func TestRejectDetectors(t *testing.T) {
	checkCases(t, StrongAccuracy("accuracy", "", scriptedSuspects), []rejectCase{
		{"first suspects live last", accuses(3, 0, 2), []string{"p0 suspects p2"}},
		{"last suspects live first", accuses(3, 2, 0), []string{"p2 suspects p0"}},
		{"crashed last suspects live first", accuses(3, 2, 0).then(crash(2)), []string{"p2 suspects p0"}},
		{"first suspects crashed last", accuses(3, 0, 2).crashFirst(2), nil},
		{"last suspects crashed first", accuses(3, 2, 0).crashFirst(0), nil},
		{"itself", accuses(3, 2, 2), nil},
	})
	told := func(n int, crashed core.Rank, to ...core.Rank) run {
		r := run{n: n, steps: []op{crash(crashed)}}
		for _, p := range to {
			r.steps = append(r.steps, detect(p, crashed))
		}
		return r
	}
	checkCases(t, StrongCompleteness("completeness", "", scriptedSuspects, nil), []rejectCase{
		{"first crashed, last not told", told(3, 0, 1), []string{"p2 is alive and does not suspect the crashed p0"}},
		{"last crashed, first not told", told(3, 2, 1), []string{"p0 is alive and does not suspect the crashed p2"}},
		{"first crashed, everyone told", told(3, 0, 2, 1), nil},
		{"last crashed, everyone told", told(3, 2, 0, 1), nil},
		{"nothing crashed", accuses(3, 1), nil},
	})
	notFirst := StrongCompleteness("completeness", "", scriptedSuspects, func(_ *env.World, p, _ core.Rank) bool { return p != 0 })
	checkCases(t, notFirst, []rejectCase{
		{"last crashed, first excused", told(3, 2, 1), nil},
		{"first crashed, last not excused", told(3, 0, 1), []string{"p2 is alive"}},
	})
	checkCases(t, DetectorComplete("detector-complete", ""), []rejectCase{
		{"first crashed, last never told", told(3, 0, 1), []string{"p2 is alive and was never told that p0 crashed"}},
		{"last crashed, first never told", told(3, 2, 1), []string{"p0 is alive and was never told that p2 crashed"}},
		{"two crashed, last told of one", told(3, 0, 2).then(crash(1), detect(2, 1)), nil},
		{"first and last crashed, middle told of the last only", told(3, 0).then(crash(2), detect(1, 2)), []string{"p1 is alive and was never told that p0"}},
		{"last crashed, everyone told", told(3, 2, 0, 1), nil},
	})
}
