package env

import (
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// delayToys are bounded-delay toys with only the timing properties: the
// pinger (a message and a periodic timer), the one-process pinger (a
// timer of Delay 0), FIFO channels and the heartbeat pair with a crash
// whose messages may be lost.
func delayToys() map[string]Config {
	fifo := pingerConfig(2, 2, 3)
	fifo.Network = FIFO
	hbLoss := hbConfig(2, 5, 2, 1, false)
	hbLoss.Loss = LossOnCrash
	toys := map[string]Config{
		"pinger δ=2 Δ=2":      pingerConfig(2, 2, 2),
		"pinger n=1 Delay 0":  pingerConfig(1, 0, 1),
		"pinger fifo δ=2 Δ=3": fifo,
		"hb δ=2 η=5 Δ=2 lose": hbLoss,
	}
	for name, c := range toys {
		c.Properties = TimingProperties()
		toys[name] = c
	}
	return toys
}

// TestDelayPropsHold: the timing properties hold on every edge of the
// correct environment's toys, and checking them changes no count.
func TestDelayPropsHold(t *testing.T) {
	for name, c := range delayToys() {
		r := mustHold(t, name, c)
		c.Properties = nil
		plain := checker.BFS[*World](mustNew(t, c), checker.Options{Workers: 1})
		if plain.States != r.States || plain.Transitions != r.Transitions {
			t.Errorf("%s: %d states, %d transitions with the timing properties, %d and %d without", name, r.States, r.Transitions, plain.States, plain.Transitions)
		}
	}
}

// TestDelayMutantsCaught: each broken timing rule (DelayMutants) is
// caught by the property named, on the toy named, with the shortest
// counterexample of the length given.
func TestDelayMutantsCaught(t *testing.T) {
	toys := delayToys()
	for _, c := range []struct {
		mut   mutant.Name
		toy   string
		prop  string
		steps int
		want  string
	}{
		{DelayWindowSendTick, "pinger δ=2 Δ=2", PropDeliveryWindow, 2, "message PING from p0 delivered to p1 at tick t+0, outside its window [t+1, t+2]"},
		{DelayWindowSendTick, "pinger fifo δ=2 Δ=3", PropDeliveryWindow, 2, "at tick t+0"},
		{DelayWindowSendTick, "hb δ=2 η=5 Δ=2 lose", PropDeliveryWindow, 2, "at tick t+0"},
		{DelayTimerEarly, "pinger δ=2 Δ=2", PropTimerDeadline, 1, "p0's timer 1 is due in 1 ticks after the step, want 2"},
		{DelayTimerEarly, "pinger n=1 Delay 0", PropTimerDeadline, 1, "p0's timer 1 is due in 0 ticks after the step, want 1"},
		{DelayTimerEarly, "hb δ=2 η=5 Δ=2 lose", PropTimerDeadline, 1, "due in 1 ticks after the step, want 2"},
		{DelayTickLate, "pinger δ=2 Δ=2", PropDeliveryWindow, 4, "a Tick passed tick t+2 with message PING from p0 to p1 still in flight"},
		{DelayTickLate, "pinger n=1 Delay 0", PropTimerDeadline, 3, "a Tick passed the deadline of p0's timer 1 without firing it"},
		{DelaySendAged, "pinger δ=2 Δ=2", PropDeliveryWindow, 1, "p0 sent 1 message(s) to p1 in this step, but 0 more of age 0"},
	} {
		restore := SetDelayMutant(c.mut)
		r := checker.BFS[*World](mustNew(t, toys[c.toy]), checker.Options{Workers: 1})
		restore()
		if r.Err != nil || len(r.Violations) == 0 {
			t.Errorf("%s on %s: err %v, survived %d states", c.mut, c.toy, r.Err, r.States)
			continue
		}
		tr := r.Violations[0]
		if tr.Violation.Property != c.prop || len(tr.Steps) != c.steps || !strings.Contains(tr.Violation.Message, c.want) {
			t.Errorf("%s on %s: caught by %s in %d steps (%s), want %s in %d (%q)", c.mut, c.toy, tr.Violation.Property, len(tr.Steps), tr.Violation.Message, c.prop, c.steps, c.want)
		}
	}
}

// edited returns w with process i's record changed by f, the rest (last
// step included) shared.
func edited(w *World, i int, f func(p *proc)) *World {
	t := newTx(w.root, w.m.height)
	f(t.mut(i))
	nw := *w
	nw.blk = nil
	w.m.commit(&t, &nw)
	nw.root = t.root
	return &nw
}

// TestDelayPropsForged: the bookkeeping the properties check by induction
// (a Tick ages every message and timer by exactly one tick; a step
// changes only the timers it fires or arms), on worlds edited by hand
// after a correct step.
func TestDelayPropsForged(t *testing.T) {
	m := mustNew(t, delayToys()["pinger δ=2 Δ=2"])
	s0 := m.Init()[0]
	call := act(Call, 0, 0, 0)
	s1, err := m.Apply(s0, call)
	if err != nil {
		t.Fatal(err)
	}
	tick := act(Tick, 0, 0, 0)
	s2, err := m.Apply(s1, tick)
	if err != nil {
		t.Fatal(err)
	}
	window, deadline := DeliveryWindow("w", ""), TimerDeadline("d", "")
	for _, c := range []struct {
		name string
		p    checker.Property[*World]
		prev *World
		a    checker.Action
		next *World
		want string
	}{
		{"correct call", window, s0, call, s1, ""},
		{"correct call", deadline, s0, call, s1, ""},
		{"correct tick", window, s1, tick, s2, ""},
		{"correct tick", deadline, s1, tick, s2, ""},
		{"message not aged", window, s1, tick, edited(s2, 1, func(p *proc) {
			p.inbox = slices.Clone(p.inbox)
			p.inbox[0].d++
		}), "a Tick took message PING from p0 to p1 from age 0 to age 0, want 1"},
		{"message dropped", window, s1, tick, edited(s2, 1, func(p *proc) { p.inbox = nil }), "a Tick changed the messages in flight to p1"},
		{"timer not advanced", deadline, s1, tick, edited(s2, 0, func(p *proc) {
			p.due = slices.Clone(p.due)
			p.due[0]++
		}), "a Tick took p0's timer 1 from 2 ticks before its deadline to 2, want 1"},
		{"stray timer", deadline, s0, call, edited(s1, 0, func(p *proc) {
			p.timers, p.due = armTimed(p.timers, p.due, 5, 1)
		}), "p0's timer 5 is armed after a step that neither armed it nor found it armed"},
		{"timer not armed", deadline, s0, call, edited(s1, 0, func(p *proc) { p.timers, p.due = nil, nil }), "p0's timer 1 is not armed after the step, want it due in 2 ticks"},
		{"message sent aged", window, s0, call, edited(s1, 1, func(p *proc) {
			p.inbox = slices.Clone(p.inbox)
			p.inbox[0].d--
		}), "p0 sent 1 message(s) to p1 in this step, but 0 more of age 0"},
	} {
		err := c.p.CheckStep(c.prev, c.a, c.next)
		if got := ""; err != nil {
			got = err.Error()
			if c.want == "" || !strings.Contains(got, c.want) {
				t.Errorf("%s (%s): %q, want %q", c.name, c.p.Name, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("%s (%s): holds, want %q", c.name, c.p.Name, c.want)
		}
	}
	// Under another timing the properties refuse to pass for nothing.
	async := pingerConfig(2, 0, 0)
	async.Timing = Asynchronous
	am := mustNew(t, async)
	a0 := am.Init()[0]
	a1, err := am.Apply(a0, call)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range TimingProperties() {
		if err := p.CheckStep(a0, call, a1); err == nil {
			t.Errorf("%s holds on an asynchronous step", p.Name)
		}
	}
}

// TestDelayPropsReads: the timing properties declare checker.ReadsStep, so
// breadth-first search with sleep sets commutes independent steps around
// the checked one; it must find the same states and the same violated
// properties as without, on the correct environment and on the mutants
// whose state space stays finite.
func TestDelayPropsReads(t *testing.T) {
	for name, c := range delayToys() {
		for _, mut := range []mutant.Name{mutant.None, DelayWindowSendTick, DelayTimerEarly, DelaySendAged} {
			restore := SetDelayMutant(mut)
			m := mustNew(t, c)
			opt := checker.Options{Workers: 1, ContinueAfterViolation: true}
			a := checker.BFS[*World](m, opt)
			opt.POR = true
			b := checker.BFS[*World](m, opt)
			restore()
			if a.Err != nil || b.Err != nil || !b.POR {
				t.Fatalf("%s %s: %v / %v (%s)", name, mut, a.Err, b.Err, b.PORNote)
			}
			va, vb := violatedSet(a), violatedSet(b)
			if a.States != b.States || va != vb || b.Transitions+b.Slept != a.Transitions {
				t.Errorf("%s %s: %d states {%s} %d generated without sleep sets, %d states {%s} %d generated + %d slept with",
					name, mut, a.States, va, a.Transitions, b.States, vb, b.Transitions, b.Slept)
			}
			t.Logf("%-20s %-24s %4d states, %5d generated, %4d slept, violated {%s}", name, mut, a.States, a.Transitions, b.Slept, va)
		}
	}
}

func violatedSet(r *checker.Result) string {
	var names []string
	for _, tr := range r.Violations {
		names = append(names, tr.Violation.Property)
	}
	slices.Sort(names)
	return strings.Join(slices.Compact(names), ",")
}
