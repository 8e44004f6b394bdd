package chart_test

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/chart"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/msc"
	"github.com/ftkernel/ftkernel/core"
)

type ping struct{}

func (ping) Kind() string                 { return "PING" }
func (ping) AppendBinary(b []byte) []byte { return append(b, 'p') }
func (ping) String() string               { return "PING" }

type start struct{}

func (start) AppendBinary(b []byte) []byte { return append(b, 's') }
func (start) String() string               { return "start" }

// pinger sends PING to every other rank when called and counts the PINGs
// it receives.
type pinger struct {
	self core.Rank
	n    int
	got  byte
}

func (p *pinger) Clone() core.Machine          { c := *p; return &c }
func (p *pinger) AppendBinary(b []byte) []byte { return append(b, p.got) }
func (p *pinger) String() string               { return "got " + string('0'+rune(p.got)) }
func (p *pinger) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		for q := range core.Rank(p.n) {
			if q != p.self {
				out = append(out, core.Send(q, ping{}))
			}
		}
	case core.EvReceive:
		p.got++
	}
	return out, nil
}

// hostedModel: three ranks, p0 hosting p1, p2 on its own; p0 is called
// once; messages of a crashed sender may be lost.
func hostedModel(t *testing.T) *env.Model {
	t.Helper()
	m, err := env.New(env.Config{Name: "hosted pings", N: 3, Crashes: 1, Loss: env.LossOnCrash,
		Hosts:     []core.Rank{0, 0, 2},
		NewNode:   func(r core.Rank, _ int) core.Machine { return &pinger{self: r, n: 3} },
		Schedules: [][][]core.Input{{{start{}}, nil, nil}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// trace takes actions from m's initial state, each described.
func trace(t *testing.T, m *env.Model, as ...checker.Action) *checker.Trace {
	t.Helper()
	tr := &checker.Trace{Model: m.Name()}
	w := m.Init()[0]
	for _, a := range as {
		tr.Steps = append(tr.Steps, checker.Step{Action: a, Text: m.Describe(w, a)})
		var err error
		if w, err = m.Apply(w, a); err != nil {
			t.Fatalf("%v: %v", a, err)
		}
	}
	return tr
}

// TestHostedCrashAndLoss: p0 pings p1 and p2, then crashes with p1, which
// it hosts; its PING to p2 is lost. The chart marks both crashes at step
// 2 (p1's as dying with its host) and draws the lost PING as a stub that
// ends at the step that loses it.
func TestHostedCrashAndLoss(t *testing.T) {
	m := hostedModel(t)
	tr := trace(t, m,
		checker.Action{Kind: env.Call, P: 0},
		checker.Action{Kind: env.Crash, P: 0},
		checker.Action{Kind: env.Lose, P: 2, Q: 0},
	)
	c, err := chart.FromTrace(m, tr)
	if err != nil {
		t.Fatal(err)
	}
	crashes := map[int]msc.Event{}
	var lost []msc.Event
	for _, e := range c.Events {
		switch e.Kind {
		case msc.Crash:
			crashes[e.P] = e
		case msc.Lost:
			lost = append(lost, e)
		}
	}
	if len(crashes) != 2 || crashes[0].Step != 2 || crashes[1].Step != 2 || crashes[1].Label == "" {
		t.Errorf("crashes %v: want p0 and p1 (with its host) at step 2", crashes)
	}
	if len(lost) != 1 || lost[0].Step != 3 || lost[0].P != 2 || lost[0].Q != 0 {
		t.Errorf("lost %v: want p0's PING to p2 lost at step 3", lost)
	}
	if arrows, stubs := c.Messages(); arrows != 0 || stubs != 2 {
		t.Errorf("%d arrows, %d stubs; want 0 and 2 (the lost PING and the one to p1)", arrows, stubs)
	}
}

// TestLassoLoop: a lasso's loop (Trace.Loop) is the chart's.
func TestLassoLoop(t *testing.T) {
	m := hostedModel(t)
	tr := trace(t, m, checker.Action{Kind: env.Call, P: 0}, checker.Action{Kind: env.Deliver, P: 1, Q: 0}, checker.Action{Kind: env.Deliver, P: 2, Q: 0})
	tr.Loop = 2
	c, err := chart.FromTrace(m, tr)
	if err != nil {
		t.Fatal(err)
	}
	if c.Loop != 2 || c.LoopStart() != 1 {
		t.Errorf("loop %d starting after step %d, want 2 after step 1", c.Loop, c.LoopStart())
	}
}
