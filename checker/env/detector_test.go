package env

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// hbNode is the toy heartbeat detector of the BoundedDelay tests: two
// processes, each the other's observer. On its call a process sends a
// heartbeat HB to its peer and arms timer hbTimer (period δ) and
// suspTimer (timeout η); each firing of hbTimer sends HB and re-arms it;
// each HB received while the peer is trusted re-arms suspTimer (the
// timer-reset reading of a heartbeat detector); when suspTimer fires the
// peer is suspected for good (EffSuspect). With mute (the mutant), the
// firing suspects nobody. The node's state is one bit, so the world is
// finite: deadlines are offsets (delay.go) and there are no sequence
// numbers.
type hbNode struct {
	me, peer      core.Rank // peer: the observed process
	succ          core.Rank // where heartbeats go (the observer)
	period, limit uint64
	mute          bool
	suspects      bool
}

const (
	hbTimer   = 1
	suspTimer = 2
)

type hb struct{}

func (hb) Kind() string                 { return "HB" }
func (hb) AppendBinary(b []byte) []byte { return append(b, 'H') }
func (hb) String() string               { return "HB" }

func (n *hbNode) Clone() core.Machine { c := *n; return &c }
func (n *hbNode) AppendBinary(b []byte) []byte {
	return core.AppendBool(b, n.suspects)
}
func (n *hbNode) String() string { return fmt.Sprintf("suspects=%v", n.suspects) }
func (n *hbNode) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		out = append(out, core.Send(n.succ, hb{}), core.Effect{Kind: core.EffSetTimer, Timer: hbTimer, Delay: n.period})
		return append(out, core.Effect{Kind: core.EffSetTimer, Timer: suspTimer, Delay: n.limit}), nil
	case core.EvTimer:
		switch ev.Timer {
		case hbTimer:
			return append(out, core.Send(n.succ, hb{}), core.Effect{Kind: core.EffSetTimer, Timer: hbTimer, Delay: n.period}), nil
		case suspTimer:
			if n.mute {
				return out, nil
			}
			n.suspects = true
			return append(out, core.Effect{Kind: core.EffSuspect, Peer: n.peer}), nil
		}
	case core.EvReceive:
		if !n.suspects {
			out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: suspTimer, Delay: n.limit})
		}
		return out, nil
	}
	return out, fmt.Errorf("unexpected %v", ev)
}

// hbConfig: both processes start at tick 0 (calls are due at once), no
// detector but this one, delay bound delta, crash budget crashes.
func hbConfig(period, limit uint64, delta, crashes int, mute bool) Config {
	start := []core.Input{in{A: 0, V: 1}}
	return Config{Name: "hb", N: 2, Crashes: crashes, Timing: BoundedDelay, Delta: delta, Detector: DetectorNone,
		Schedules: [][][]core.Input{{start, start}},
		NewNode: func(p core.Rank, n int) core.Machine {
			return &hbNode{me: p, peer: 1 - p, succ: 1 - p, period: period, limit: limit, mute: mute}
		},
		Properties: hbProperties(),
	}
}

// hbProperties: strong accuracy (no process suspects a live one) and
// strong completeness over lassos (eventually every live process suspects
// every crashed one).
func hbProperties() []checker.Property[*World] {
	suspects := func(s *World, p core.Rank) bool { return s.Node(p).(*hbNode).suspects }
	return []checker.Property[*World]{
		{Name: "accuracy", Kind: checker.Invariant, Doc: "no process suspects a live process", Check: func(s *World) error {
			for p := range core.Rank(2) {
				if suspects(s, p) && !s.Crashed(1-p) {
					return fmt.Errorf("%v suspects %v, which is alive", p, 1-p)
				}
			}
			return nil
		}},
		{Name: "completeness", Kind: checker.Eventually, Doc: "every crash is eventually suspected by every live process", Check: func(s *World) error {
			for p := range core.Rank(2) {
				if !s.Crashed(p) && s.Crashed(1-p) && !suspects(s, p) {
					return fmt.Errorf("%v does not suspect the crashed %v", p, 1-p)
				}
			}
			return nil
		}},
	}
}

// TestHeartbeatAccuracyBoundary finds, for each heartbeat period δ and
// delay bound Δ, the least timeout η at which no false suspicion is
// reachable (exhaustive, no crash), and compares it with the bound derived
// by hand: a heartbeat sent at tick kδ arrives at r_k ∈ [kδ+1, kδ+Δ], so
// two consecutive receipts can be δ+Δ−1 ticks apart (r_k = kδ+1, r_{k+1}
// = (k+1)δ+Δ; with reordering the next receipt after r still comes by the
// first heartbeat sent at or after r, by r+δ−1+Δ), and the suspicion timer
// set at r_k fires at r_k+η, before the receipt when both fall on the same
// tick (every order within a tick is explored). So a false suspicion is
// reachable iff η ≤ δ+Δ−1: the least safe timeout is δ+Δ (the gap between
// the send ticks plus the delay bound, minus the one tick a message takes
// at least). The start is covered: the first heartbeat arrives by Δ ≤
// δ+Δ−1.
func TestHeartbeatAccuracyBoundary(t *testing.T) {
	for _, net := range []Network{Unordered, FIFO} {
		heartbeatBoundary(t, net)
	}
}

// heartbeatBoundary is TestHeartbeatAccuracyBoundary under network net
// (the bound holds under FIFO too: the receipts are then in send order).
func heartbeatBoundary(t *testing.T, net Network) {
	for period := uint64(1); period <= 3; period++ {
		for delta := 1; delta <= 3; delta++ {
			safe := uint64(0)
			for limit := uint64(1); limit <= period+uint64(delta)+1; limit++ {
				cfg := hbConfig(period, limit, delta, 0, false)
				cfg.Network = net
				m := mustNew(t, cfg)
				r := checker.BFS[*World](m, checker.Options{Workers: 1, Properties: []string{"accuracy"}})
				if r.Err != nil {
					t.Fatal(r.Err)
				}
				if len(r.Violations) == 0 && safe == 0 {
					safe = limit
				}
				if len(r.Violations) > 0 && safe != 0 {
					t.Fatalf("%v δ=%d Δ=%d: η=%d safe but η=%d not", net, period, delta, safe, limit)
				}
			}
			t.Logf("%v δ=%d Δ=%d: least safe η = %d", net, period, delta, safe)
			if want := period + uint64(delta); safe != want {
				t.Errorf("%v δ=%d Δ=%d: least safe η = %d, hand bound δ+Δ = %d", net, period, delta, safe, want)
			}
		}
	}
}

// TestHeartbeatSmallestFalseSuspicion: δ = 2, Δ = 2, η = 3 = δ+Δ−1. By
// hand, the shortest run to a false suspicion has 11 steps: the two calls
// (tick 0); the first heartbeats arrive by tick 2 (window [1, 2]), so each
// suspicion deadline moves to at least 1+3 = 4, and the earliest
// suspicion is at tick 4, which takes 4 Ticks; before the Tick from 2 to 3
// both heartbeats of tick 0 must be delivered (2 steps) and both hbTimers
// fire at tick 2 (2 steps); at tick 4 a process whose first heartbeat
// came at tick 1 (deadline 4) fires its suspicion timer before the
// heartbeat sent at 2, due at 4, arrives: 2+4+2+2+1 = 11. (BFS's first
// such run has p0 suspect p1.)
func TestHeartbeatSmallestFalseSuspicion(t *testing.T) {
	m := mustNew(t, hbConfig(2, 3, 2, 0, false))
	r := checker.BFS[*World](m, checker.Options{Workers: 1, Properties: []string{"accuracy"}})
	if len(r.Violations) != 1 {
		t.Fatalf("no false suspicion at η = δ+Δ−1: %+v", r)
	}
	tr := r.Violations[0]
	last := tr.Steps[len(tr.Steps)-1].Action
	if len(tr.Steps) != 11 || last.Kind != Fire || last.I != suspTimer {
		t.Fatalf("smallest counterexample %d steps, last %v; hand count 11, ending in a suspicion timer:\n%v", len(tr.Steps), last, tr)
	}
	t.Logf("δ=2 Δ=2 η=3: %d states, %d generated; smallest false suspicion, %d steps:\n%v", r.States, r.Transitions, len(tr.Steps), tr)
	states, err := checker.Replay[*World](m, tr)
	var ve *checker.ViolationError
	if !errors.As(err, &ve) || ve.Violation != *tr.Violation || states[len(states)-1].Now() != 4 {
		t.Fatalf("replay: %v (clock %d, want 4)", err, states[len(states)-1].Now())
	}
	// DFS agrees on the verdict (its path need not be shortest).
	if d := checker.DFS[*World](m, checker.Options{Properties: []string{"accuracy"}}); len(d.Violations) != 1 {
		t.Fatalf("DFS: %+v", d)
	}
}

// TestHeartbeatCompleteness: with η = δ+Δ (accurate) and one crash at any
// step, every crash is eventually suspected: no reachable cycle (nor
// quiescent state) avoids it, and accuracy holds too; the checker's bound
// on the time spent unsuspected is the hand-derived latency Δ+η. The mutant that never
// suspects has a lasso: after the crash the survivor's heartbeat timer
// cycles forever, δ Ticks and one firing of hbTimer per turn, so its cycle
// has δ+1 steps.
func TestHeartbeatCompleteness(t *testing.T) {
	for _, c := range []struct {
		period uint64
		delta  int
	}{{1, 1}, {2, 2}, {3, 2}} {
		limit := c.period + uint64(c.delta)
		for _, opt := range []checker.Options{{Workers: 1}, {Mode: checker.DepthFirst}} {
			m := mustNew(t, hbConfig(c.period, limit, c.delta, 1, false))
			r := checker.Search[*World](m, opt)
			if r.Err != nil || !r.Complete || len(r.Violations) != 0 {
				t.Fatalf("δ=%d Δ=%d η=%d %v: %+v", c.period, c.delta, limit, opt.Mode, r)
			}
			t.Logf("δ=%d Δ=%d η=%d crashes=1 %v: %d states, %d generated, complete, accuracy and completeness hold; %v",
				c.period, c.delta, limit, opt.Mode, r.States, r.Transitions, r.Bounds)
			// The worst-case detection latency, by hand: the crashed process's
			// last heartbeat, sent at its crash tick, arrives at most Δ ticks
			// later and resets the survivor's timer to η more; no earlier
			// suspicion, since η > δ+Δ−1. So Δ+η ticks.
			if len(r.Bounds) != 1 || r.Bounds[0].Property != "completeness" || r.Bounds[0].Time != c.delta+int(limit) {
				t.Fatalf("δ=%d Δ=%d η=%d: bounds %v, want a latency of Δ+η = %d ticks", c.period, c.delta, limit, r.Bounds, c.delta+int(limit))
			}
			mm := mustNew(t, hbConfig(c.period, limit, c.delta, 1, true))
			r = checker.Search[*World](mm, opt)
			if r.Err != nil || len(r.Violations) != 1 {
				t.Fatalf("mute δ=%d Δ=%d %v: %+v", c.period, c.delta, opt.Mode, r)
			}
			tr := r.Violations[0]
			if tr.Violation.Property != "completeness" || tr.Loop != int(c.period)+1 {
				t.Fatalf("mute δ=%d Δ=%d: %v, loop %d, want completeness with a loop of δ+1 = %d\n%v",
					c.period, c.delta, tr.Violation, tr.Loop, c.period+1, tr)
			}
			t.Logf("mute δ=%d Δ=%d %v: lasso of %d steps, cycle %d (%d states)", c.period, c.delta, opt.Mode, len(tr.Steps), tr.Loop, r.States)
			states, err := checker.Replay[*World](mm, tr)
			var ve *checker.ViolationError
			if !errors.As(err, &ve) || ve.Violation != *tr.Violation {
				t.Fatalf("mute: replay %v, want %v", err, tr.Violation)
			}
			if s := states[tr.LoopStart()]; s.NumCrashed() != 1 {
				t.Fatalf("mute: the cycle starts with %d crashed", s.NumCrashed())
			}
		}
	}
}

// TestHeartbeatWalks: random walks (Sample) find the mute mutant's lasso
// and the false suspicion at η = δ+Δ−1, and nothing at η = δ+Δ with the
// correct detector.
func TestHeartbeatWalks(t *testing.T) {
	opt := checker.WalkOptions{Walks: 200, MaxSteps: 200, Workers: 1, Seed: 3}
	cfg := hbConfig(2, 4, 2, 1, true)
	cfg.CrashProb = 0.05
	mm := mustNew(t, cfg)
	w := checker.Walk[*World](mm, opt)
	if w.Err != nil || w.Violation == nil || w.Violation.Loop == 0 || w.Violation.Violation.Property != "completeness" {
		t.Fatalf("mute: %+v", w)
	}
	var ve *checker.ViolationError
	if _, err := checker.Replay[*World](mm, w.Violation); !errors.As(err, &ve) || ve.Violation != *w.Violation.Violation {
		t.Fatalf("mute walk lasso does not replay: %v\n%v", err, w.Violation)
	}
	cfg.NewNode = hbConfig(2, 4, 2, 1, false).NewNode
	if w := checker.Walk[*World](mustNew(t, cfg), opt); w.Err != nil || w.Violation != nil {
		t.Fatalf("correct detector: %+v", w.Violation)
	}
	m := mustNew(t, hbConfig(2, 3, 2, 0, false))
	if w := checker.Walk[*World](m, opt); w.Violation == nil || w.Violation.Violation.Property != "accuracy" {
		t.Fatalf("η = δ+Δ−1: walks found no false suspicion: %+v", w)
	}
}

// ringConfig: n processes on a ring, p sending heartbeats to p+1 and
// observing p−1 (hbNode with succ and peer), all starting at tick 0.
func ringConfig(n int, period, limit uint64, delta, crashes int) Config {
	start := make([][]core.Input, n)
	for p := range start {
		start[p] = []core.Input{in{A: 0, V: 1}}
	}
	return Config{Name: "ring", N: n, Crashes: crashes, Timing: BoundedDelay, Delta: delta, Detector: DetectorNone,
		Schedules: [][][]core.Input{start},
		NewNode: func(p core.Rank, n int) core.Machine {
			return &hbNode{me: p, peer: (p + core.Rank(n) - 1) % core.Rank(n), succ: (p + 1) % core.Rank(n), period: period, limit: limit}
		},
		Properties: []checker.Property[*World]{{Name: "ring-completeness", Kind: checker.Eventually,
			Doc: "every live process whose predecessor crashed eventually suspects it", Check: func(s *World) error {
				for p := range core.Rank(s.N()) {
					nd := s.Node(p).(*hbNode)
					if !s.Crashed(p) && s.Crashed(nd.peer) && !nd.suspects {
						return fmt.Errorf("%v does not suspect its crashed predecessor %v", p, nd.peer)
					}
				}
				return nil
			}}},
	}
}

// BenchmarkHeartbeatRing measures the bounded-delay state space of an
// observation ring (δ = 2, Δ = 2, η = 4) and the graph search's cost:
// go test ./checker/env -run XXX -bench HeartbeatRing -benchtime 1x.
func BenchmarkHeartbeatRing(b *testing.B) {
	for _, c := range []struct{ n, crashes int }{{3, 1}, {4, 1}, {4, 2}, {5, 1}} {
		b.Run(fmt.Sprintf("n=%d/crashes=%d", c.n, c.crashes), func(b *testing.B) {
			m := mustNew(b, ringConfig(c.n, 2, 4, 2, c.crashes))
			for b.Loop() {
				r := checker.BFS[*World](m, checker.Options{Workers: 1})
				if r.Err != nil || !r.Complete || len(r.Violations) != 0 {
					b.Fatalf("%+v", r)
				}
				b.ReportMetric(float64(r.States), "states")
				b.ReportMetric(float64(r.Transitions), "generated")
			}
		})
	}
}
