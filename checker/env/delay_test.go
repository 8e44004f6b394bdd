package env

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// pinger is the toy of the BoundedDelay tests. On its call, p0 sends PING
// to p1 (when there is a p1) and, when period > 0, arms timer 1 with Delay
// period; each firing of timer 1 re-arms it (a periodic timer that does
// nothing else). p1 answers each PING with a PONG, and p0 each PONG with a
// PING: one message ping-pongs forever. Nodes have no state of their own,
// so a world is the calls made, the message in flight with its deadline,
// and the timer's offset.
type pinger struct {
	me     core.Rank
	n      int
	period uint64
}

type ping bool // true: PING (to p1), false: PONG (to p0)

func (p ping) Kind() string {
	if p {
		return "PING"
	}
	return "PONG"
}
func (p ping) AppendBinary(b []byte) []byte { return append(b, p.Kind()[1]) }
func (p ping) String() string               { return p.Kind() }

func (p *pinger) Clone() core.Machine          { c := *p; return &c }
func (p *pinger) AppendBinary(b []byte) []byte { return b }
func (p *pinger) String() string               { return "pinger" }
func (p *pinger) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		if p.n > 1 {
			out = append(out, core.Send(1, ping(true)))
		}
		if p.period > 0 || p.n == 1 {
			out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: 1, Delay: p.period})
		}
		return out, nil
	case core.EvTimer:
		return append(out, core.Effect{Kind: core.EffSetTimer, Timer: 1, Delay: p.period}), nil
	case core.EvReceive:
		return append(out, core.Send(ev.From, ping(p.me == 0))), nil
	case core.EvSuspect:
		return out, nil
	}
	return out, fmt.Errorf("unexpected %v", ev)
}

// pingerConfig: n processes (1 or 2), p0 calls once, timer period (0: no
// timer with n = 2, Delay 0 with n = 1), delay bound delta.
func pingerConfig(n int, period uint64, delta int) Config {
	calls := make([][]core.Input, n)
	calls[0] = []core.Input{in{A: 0, V: 1}}
	return Config{Name: "pinger", N: n, Timing: BoundedDelay, Delta: delta,
		Schedules: [][][]core.Input{calls},
		NewNode:   func(p core.Rank, n int) core.Machine { return &pinger{me: p, n: n, period: period} }}
}

// TestBoundedDelayHandCounted checks the state and transition counts of
// the pinger toys against counts made by hand. "generated" is TLC's count
// (Result.Transitions): the initial state plus one per edge.
//
// One process with a periodic timer of period P (no messages). s0: the
// call is due (only Call). After it the timer's offset is P; with offset
// k > 0 only Tick is enabled (nothing is due, the timer waits), giving
// offset k-1; at offset 0 only Fire, which re-arms it at offset P, the
// world after the call again (the node has no state). States: s0 and the
// offsets P … 0, that is P+2; edges: Call, P ticks, Fire: P+2; generated
// P+3. Delay 0 is read as 1, so it counts like P = 1: 3 states, 3 edges.
//
// Ping-pong with Δ = 2, no timer. s0: Call due. A message in flight has
// deadline offset d ∈ {2, 1, 0}: sent with d = Δ = 2 (window closed: only
// Tick), d = 1 (window open, not closing: Deliver or Tick), d = 0
// (deadline now: only Deliver). PING states A2, A1, A0 and PONG states B2,
// B1, B0: edges A2→A1, A1→A0 (ticks), A1→B2, A0→B2 (deliveries), and the
// same for B back to A2: 8 edges, plus s0→A2. States 1+6 = 7, edges 9,
// generated 10. For a general Δ: 1+2(Δ+1) states, 1+4Δ edges.
//
// Both at once, Δ = 2, period 2: p0's call sends PING and arms the timer
// (offset 2). A world is (timer offset T ∈ {2,1,0}, message M ∈ {A2, A1,
// A0, B2, B1, B0}). From (2, A2) by hand, breadth first, all 3·6 = 18
// pairs are reached (the offsets drift apart because a delivery may come
// at either tick of its window): (2,A2) → (1,A1) → (1,B2), (0,A0) → (0,B1),
// (2,A0), (0,B2) → (2,B1), (0,A2), (2,B2) → (1,B0), (1,B1), (1,A2) →
// (0,B0), (0,A1) → (2,B0), (2,A1) → (1,A0). Out-degree of (T, M): Fire
// when T = 0; Deliver when M's offset is 1 or 0; Tick when T ≠ 0 and M's
// offset is not 0 (nothing due). T = 0: 6 Fires + 4 Delivers = 10; T ∈
// {1,2}: 8 Delivers + 2·2 Ticks (M ∈ {A2, A1, B2, B1}) = 16. Edges 26 + the
// call: states 19, edges 27, generated 28.
func TestBoundedDelayHandCounted(t *testing.T) {
	cases := []struct {
		name             string
		n                int
		period           uint64
		delta            int
		states, generate int64
	}{
		{"timer P=1", 1, 1, 1, 3, 4},
		{"timer P=2", 1, 2, 1, 4, 5},
		{"timer P=3", 1, 3, 2, 5, 6},
		{"timer Delay 0", 1, 0, 1, 3, 4},
		{"ping-pong Δ=1", 2, 0, 1, 5, 6},
		{"ping-pong Δ=2", 2, 0, 2, 7, 10},
		{"ping-pong Δ=3", 2, 0, 3, 9, 14},
		{"both Δ=2 P=2", 2, 2, 2, 19, 28},
	}
	for _, c := range cases {
		m := mustNew(t, pingerConfig(c.n, c.period, c.delta))
		for _, opt := range []checker.Options{{Workers: 1}, {Mode: checker.DepthFirst}} {
			r := checker.Search[*World](m, opt)
			if r.Err != nil || !r.Complete || r.States != c.states || r.Transitions != c.generate {
				t.Errorf("%s %v: states %d generated %d (complete %v, err %v), hand count %d and %d",
					c.name, opt.Mode, r.States, r.Transitions, r.Complete, r.Err, c.states, c.generate)
			}
		}
		// The independent explorer of these tests (Encode, not fingerprints)
		// agrees, and no world of these toys is quiescent but s0's
		// successors... none at all: something always waits for the clock.
		n := explore(t, m, 100, func(s *World, as []checker.Action) {
			if m.Quiescent(s) || len(as) == 0 {
				t.Errorf("%s: quiescent or stuck world %v", c.name, s)
			}
		})
		if int64(n) != c.states {
			t.Errorf("%s: explore found %d worlds, hand count %d", c.name, n, c.states)
		}
	}
}

// TestBoundedDelayWindow follows one PING through its window with Δ = 2:
// closed when sent, open a tick later, due (Tick disabled) at its deadline.
func TestBoundedDelayWindow(t *testing.T) {
	m := mustNew(t, pingerConfig(2, 0, 2))
	s0 := m.Init()[0]
	if as := m.Actions(s0, nil); len(as) != 1 || as[0] != act(Call, 0, 0, 0) {
		t.Fatalf("initial actions %v, want the due call only", as)
	}
	a2 := run(t, m, s0, act(Call, 0, 0, 0))
	if as := m.Actions(a2, nil); len(as) != 1 || as[0].Kind != Tick || a2.Deadlines()[0] != 2 {
		t.Fatalf("after the send: actions %v, deadlines %v; want Tick only, [2]", as, a2.Deadlines())
	}
	if _, err := m.Apply(a2, act(Deliver, 1, 0, 0)); !errors.Is(err, ErrNotEnabled) {
		t.Fatalf("delivered in the tick of the send: %v", err)
	}
	a1 := run(t, m, a2, act(Tick, 0, 0, 0))
	if as := m.Actions(a1, nil); len(as) != 2 || as[0] != act(Deliver, 1, 0, 0) || as[1].Kind != Tick {
		t.Fatalf("open window: actions %v, want Deliver and Tick", as)
	}
	a0 := run(t, m, a1, act(Tick, 0, 0, 0))
	if as := m.Actions(a0, nil); len(as) != 1 || as[0] != act(Deliver, 1, 0, 0) {
		t.Fatalf("deadline: actions %v, want Deliver only", as)
	}
	if _, err := m.Apply(a0, act(Tick, 0, 0, 0)); !errors.Is(err, ErrNotEnabled) {
		t.Fatalf("ticked past a deadline: %v", err)
	}
	if a0.Now() != 2 || a1.Now() != 1 {
		t.Fatalf("clock %d, %d; want 2, 1", a0.Now(), a1.Now())
	}
	// The PONG sent at the deadline is a fresh message, d = Δ; delivered
	// early or late, the world is the same, with a different clock.
	b2late := run(t, m, a0, act(Deliver, 1, 0, 0))
	b2early := run(t, m, a1, act(Deliver, 1, 0, 0))
	if enc(m, b2late) != enc(m, b2early) || m.Fingerprint(b2late) != m.Fingerprint(b2early) || b2late.Now() == b2early.Now() {
		t.Fatal("the clock shows in the encoding, or the deadline does not")
	}
	// Deadlines are encoded: A2, A1 and A0 differ only by them.
	if enc(m, a2) == enc(m, a1) || enc(m, a1) == enc(m, a0) || m.Fingerprint(a2) == m.Fingerprint(a1) {
		t.Fatal("worlds that differ in a deadline encode alike")
	}
	if got := m.Describe(a1, act(Tick, 0, 0, 0)); got != "the clock advances to tick 2" {
		t.Fatalf("Describe(Tick) = %q", got)
	}
}

// TestBoundedDelayTimers: a timer fires exactly at its deadline, re-arming
// replaces the deadline, and the offsets are encoded.
func TestBoundedDelayTimers(t *testing.T) {
	cfg := tickerConfig(1, 3)
	cfg.Timing, cfg.Delta = BoundedDelay, 1
	m := mustNew(t, cfg)
	// ticker arms timer 1 with Delay 5, then again with 9: the second wins.
	s := run(t, m, m.Init()[0], act(Call, 0, 0, 0))
	if got := s.TimerDeadlines(0); len(got) != 1 || got[0] != 9 {
		t.Fatalf("deadlines after re-arming %v, want [9]", got)
	}
	if _, err := m.Apply(s, act(Fire, 0, 0, 1)); !errors.Is(err, ErrNotEnabled) {
		t.Fatalf("fired 9 ticks early: %v", err)
	}
	for k := 8; k >= 0; k-- {
		prev := s
		s = run(t, m, s, act(Tick, 0, 0, 0))
		if got := s.TimerDeadlines(0)[0]; got != int32(k) || enc(m, s) == enc(m, prev) {
			t.Fatalf("offset %d after a tick, want %d (or the offset is not encoded)", got, k)
		}
	}
	if as := m.Actions(s, nil); len(as) != 1 || as[0] != act(Fire, 0, 0, 1) {
		t.Fatalf("at the deadline: actions %v, want Fire only", as)
	}
	// The firing re-arms with Delay 0, read as 1: it fires at the next tick.
	s = run(t, m, s, act(Fire, 0, 0, 1))
	if got := s.TimerDeadlines(0); len(got) != 1 || got[0] != 1 {
		t.Fatalf("Delay 0 armed at offset %v, want [1]", got)
	}
	// A delay beyond MaxTimerDelay is the protocol's error, not a panic.
	big := Config{Name: "big", N: 1, Timing: BoundedDelay, Delta: 1, Schedules: [][][]core.Input{{{in{}}}},
		NewNode: func(core.Rank, int) core.Machine { return &armer{delay: MaxTimerDelay + 1} }}
	mb := mustNew(t, big)
	var se *StepError
	if _, err := mb.Apply(mb.Init()[0], act(Call, 0, 0, 0)); !errors.As(err, &se) {
		t.Fatalf("oversized delay: %v", err)
	}
}

// armer arms timer 2 with a fixed delay on its call.
type armer struct{ delay uint64 }

func (a *armer) Clone() core.Machine          { c := *a; return &c }
func (a *armer) AppendBinary(b []byte) []byte { return b }
func (a *armer) String() string               { return "armer" }
func (a *armer) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	return append(out, core.Effect{Kind: core.EffSetTimer, Timer: 2, Delay: a.delay}), nil
}

// TestBoundedDelayCrash: a crash is possible at any step; its detector
// notifications are due at once (no Tick before them), and the crashed
// process's messages and timers are gone.
func TestBoundedDelayCrash(t *testing.T) {
	cfg := pingerConfig(2, 2, 2)
	cfg.Crashes = 1
	m := mustNew(t, cfg)
	s := run(t, m, m.Init()[0], act(Call, 0, 0, 0), act(Tick, 0, 0, 0))
	if !has(m.Actions(s, nil), act(Crash, 1, 0, 0)) {
		t.Fatal("no crash enabled")
	}
	s = run(t, m, s, act(Crash, 1, 0, 0))
	if as := m.Actions(s, nil); !has(as, act(Detect, 0, 1, 0)) || has(as, act(Tick, 0, 0, 0)) {
		t.Fatalf("after the crash: %v; want Detect and no Tick", as)
	}
	s = run(t, m, s, act(Detect, 0, 1, 0))
	if len(s.InFlight()) != 0 || !has(m.Actions(s, nil), act(Tick, 0, 0, 0)) {
		t.Fatalf("PING to the dead p1 still in flight (%v), or no Tick", s.InFlight())
	}
	// p0's timer keeps going; nothing else is left, and the run cycles with
	// period 2: the world after two ticks and a firing is the same.
	s1 := run(t, m, s, act(Tick, 0, 0, 0))
	s2 := run(t, m, s1, act(Fire, 0, 0, 1), act(Tick, 0, 0, 0), act(Tick, 0, 0, 0))
	if enc(m, s1) != enc(m, s2) {
		t.Fatal("the periodic timer does not close a cycle")
	}
	cfg.Crashes = 2
	m2 := mustNew(t, cfg)
	s = run(t, m2, m2.Init()[0], act(Call, 0, 0, 0), act(Crash, 0, 0, 0), act(Crash, 1, 0, 0))
	if !m2.Quiescent(s) || len(m2.Actions(s, nil)) != 0 {
		t.Fatalf("all dead: quiescent %v, actions %v", m2.Quiescent(s), m2.Actions(s, nil))
	}
}

// TestBoundedDelaySampleAndReplay: random walks take only enabled actions
// (Tick included), and a walk's trace replays to the same worlds.
func TestBoundedDelaySampleAndReplay(t *testing.T) {
	for _, net := range []Network{Unordered, FIFO} {
		cfg := pingerConfig(2, 2, 3)
		cfg.Network, cfg.Crashes, cfg.CrashProb, cfg.Loss = net, 1, 0.05, LossOnCrash
		m := mustNew(t, cfg)
		r := rand.New(rand.NewPCG(1, uint64(net)))
		kinds := map[uint8]int{}
		for w := range 20 {
			s := m.Init()[0]
			var acts []checker.Action
			for range 60 {
				a, ok := m.Sample(s, r, nil)
				if !ok {
					break
				}
				if !has(m.Actions(s, nil), a) {
					t.Fatalf("%v walk %d: sampled %v, not enabled in %v", net, w, a, m.Actions(s, nil))
				}
				kinds[a.Kind]++
				acts = append(acts, a)
				s = run(t, m, s, a)
			}
			steps := make([]checker.Step, len(acts))
			for i, a := range acts {
				steps[i] = checker.Step{Action: a}
			}
			states, err := checker.Replay[*World](m, &checker.Trace{Steps: steps})
			if err != nil || enc(m, states[len(states)-1]) != enc(m, s) || states[len(states)-1].Now() != s.Now() {
				t.Fatalf("%v walk %d: replay %v", net, w, err)
			}
		}
		for _, k := range []uint8{Deliver, Tick, Fire, Crash, Call} {
			if kinds[k] == 0 {
				t.Errorf("%v: no %s sampled in 20 walks (%v)", net, KindName(k), kinds)
			}
		}
	}
	res := checker.Walk[*World](mustNew(t, pingerConfig(2, 2, 2)), checker.WalkOptions{Walks: 4, MaxSteps: 50, Workers: 1})
	if res.Err != nil || res.Steps != 200 {
		t.Fatalf("Walk: %d steps, err %v (no world of the toy is quiescent)", res.Steps, res.Err)
	}
}

func TestBoundedDelayConfig(t *testing.T) {
	bad := []func(c *Config){
		func(c *Config) { c.Delta = 0 },
		func(c *Config) { c.Delta = MaxDelta + 1 },
		func(c *Config) { c.Timing = Asynchronous },
		func(c *Config) { c.Timing = LockStepRounds },
		func(c *Config) { c.Wakeups = []uint64{1} },
		func(c *Config) { c.CrashBeforeWakeup = true },
	}
	for i, f := range bad {
		cfg := pingerConfig(2, 0, 2)
		f(&cfg)
		if _, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("bad config %d accepted: %v", i, err)
		}
	}
	if tm, err := ParseTiming("bounded"); err != nil || tm != BoundedDelay || tm.String() != "bounded" {
		t.Fatalf("ParseTiming(bounded) = %v, %v", tm, err)
	}
	if m := mustNew(t, pingerConfig(2, 0, 3)); m.Name() != "pinger n=2 crashes=0 delta=3" {
		t.Fatalf("name %q", m.Name())
	}
}

// TestBoundedDelayPOR: sleep sets (BFS with POR) keep every state and the
// verdict of the toy detector under BoundedDelay, Tick being dependent
// with every action.
func TestBoundedDelayPOR(t *testing.T) {
	for _, limit := range []uint64{3, 4} {
		m := mustNew(t, hbConfig(2, limit, 2, 1, false))
		opt := checker.Options{Workers: 1, Properties: []string{"accuracy"}, ContinueAfterViolation: true}
		plain := checker.BFS[*World](m, opt)
		opt.POR = true
		por := checker.BFS[*World](m, opt)
		if !por.POR || por.States != plain.States || len(por.Violations) != len(plain.Violations) ||
			por.Transitions >= plain.Transitions {
			t.Fatalf("η=%d: POR %v (%s): %d states %d transitions %d violations; without: %d %d %d", limit, por.POR, por.PORNote,
				por.States, por.Transitions, len(por.Violations), plain.States, plain.Transitions, len(plain.Violations))
		}
	}
}

// TestBoundedDelayTimerCodec: decodeTimers inverts appendTimers (both
// timings) and rejects what it could not have written.
func TestBoundedDelayTimerCodec(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		var ids []uint64
		var due []int32
		for id := uint64(0); id < 40; id++ {
			if r.IntN(4) == 0 {
				ids, due = armTimed(ids, due, id, int32(r.IntN(1000)))
			}
		}
		for _, timed := range []bool{false, true} {
			b := appendTimers(nil, ids, due, timed)
			d := core.NewDecoder(b)
			gi, gd := decodeTimers(d, timed)
			if err := d.Finish(); err != nil || fmt.Sprint(gi) != fmt.Sprint(ids) || timed && fmt.Sprint(gd) != fmt.Sprint(due) || !timed && gd != nil {
				t.Fatalf("timed %v: %v %v → %v %v (%v)", timed, ids, due, gi, gd, err)
			}
		}
	}
	for _, b := range [][]byte{
		appendTimers(nil, []uint64{3, 3}, []int32{1, 1}, true),           // ids not ascending
		appendTimers(nil, []uint64{3}, []int32{MaxTimerDelay + 1}, true), // offset too large
		{2, 1}, // truncated
	} {
		d := core.NewDecoder(b)
		decodeTimers(d, true)
		if err := d.Finish(); !errors.Is(err, core.ErrMalformed) {
			t.Fatalf("%v accepted: %v", b, err)
		}
	}
	d := core.NewDecoder(core.AppendUint(nil, 3))
	if decodeDeadline(d, 2); !errors.Is(d.Finish(), core.ErrMalformed) {
		t.Fatal("deadline offset 3 accepted with Δ = 2")
	}
	d = core.NewDecoder(core.AppendUint(nil, 2))
	if got := decodeDeadline(d, 2); got != 2 || d.Finish() != nil {
		t.Fatalf("deadline offset 2 with Δ = 2: %d, %v", got, d.Err())
	}
}
