package env_test

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// racer is a toy machine whose outcome depends on the order of its events,
// unlike the SoundnessToys (whose outcomes are mostly order-free): it
// records the order of its events (calls, messages, timer firings). On its call
// it sends one message to each of onCall and, when delay > 0, arms timer 1
// with that delay; on every message it sends one to each of relay.
type racer struct {
	me     core.Rank
	onCall []core.Rank
	relay  []core.Rank
	delay  uint64
	log    uint16 // the kinds of the events taken, two bits each: 1 call, 2 message, 3 timer
}

type ping struct{}

func (ping) Kind() string                 { return "PING" }
func (ping) AppendBinary(b []byte) []byte { return append(b, 'P') }
func (ping) String() string               { return "PING" }

type go_ struct{}

func (go_) AppendBinary(b []byte) []byte { return append(b, 'G') }
func (go_) String() string               { return "go" }

func (r *racer) Clone() core.Machine { c := *r; return &c }
func (r *racer) AppendBinary(b []byte) []byte {
	return append(b, byte(r.me), byte(r.log), byte(r.log>>8))
}
func (r *racer) String() string { return fmt.Sprintf("%v log=%b", r.me, r.log) }
func (r *racer) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	kind := uint8(0)
	switch ev.Kind {
	case core.EvCall:
		kind = 1
		for _, q := range r.onCall {
			out = append(out, core.Send(q, ping{}))
		}
		if r.delay > 0 {
			out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: 1, Delay: r.delay})
		}
	case core.EvReceive:
		kind = 2
		for _, q := range r.relay {
			out = append(out, core.Send(q, ping{}))
		}
	case core.EvTimer:
		kind = 3
	case core.EvSuspect:
		return out, nil
	default:
		return out, fmt.Errorf("unexpected %v", ev)
	}
	r.log = r.log<<2 | uint16(kind)
	return out, nil
}

// racers builds a config of len(nodes) racers; calls lists the ranks that
// make one call.
func racers(name string, nodes []racer, calls ...core.Rank) env.Config {
	sched := make([][]core.Input, len(nodes))
	for _, p := range calls {
		sched[p] = []core.Input{go_{}}
	}
	return env.Config{Name: name, N: len(nodes), Schedules: [][][]core.Input{sched},
		NewNode: func(p core.Rank, n int) core.Machine {
			r := nodes[p]
			r.me = p
			return &r
		},
		// The relation read off Step: a racer sends on its call (to
		// onCall) while it has one left, and on every message (to relay).
		MaySend: func(w *env.World, p, q core.Rank) bool {
			r := w.Node(p).(*racer)
			return len(w.PendingCalls(p)) > 0 && slices.Contains(r.onCall, q) || slices.Contains(r.relay, q)
		}}
}

// raceToys are order-sensitive models, one per rule of Persistent that the
// SoundnessToys cannot show needed:
//
//   - race (processes woken by messages): p2's call pings p1, which
//     relays to p0; p0's call and the relayed ping race. From the initial
//     world {Call(p0)} alone is not persistent: p1 has nothing enabled but
//     is woken by p2 and then sends to p0.
//   - lossy-race (lost-sender rule): p1's call pings p0 and p1 may crash
//     (detector off, messages of a crashed sender may be lost); p0's call
//     and the ping race, or the ping is lost. {p0's actions} alone is not
//     persistent: p1's crash enables a Lose at p0.
//   - timer-race (due action, BoundedDelay Δ = 2): p1's call pings p0, p0's
//     call arms a timer for 2 ticks, p2's call arms one for 1 tick. At tick
//     1 p0's ping is deliverable but not due and p2's timer is due; taking
//     the ping alone would miss p0's timer firing first at tick 2.
//   - latch (absorbed deliveries; persistent_absorb_test.go): three pings
//     race to be p0's first; only the later ones are absorbed.
func raceToys() map[string]env.Config {
	out := map[string]env.Config{}
	out["race"] = racers("race", []racer{{}, {relay: []core.Rank{0}}, {onCall: []core.Rank{1}}}, 0, 2)
	c := racers("lossy-race", []racer{{}, {onCall: []core.Rank{0}}}, 0, 1)
	c.Crashes, c.Survivors, c.Detector, c.Loss = 1, []core.Rank{0}, env.DetectorNone, env.LossOnCrash
	out["lossy-race"] = c
	c = racers("timer-race", []racer{{delay: 2}, {onCall: []core.Rank{0}}, {delay: 1}}, 0, 1, 2)
	c.Timing, c.Delta = env.BoundedDelay, 2
	out["timer-race"] = c
	out["latch"] = latchToy() // persistent_absorb_test.go
	return out
}
