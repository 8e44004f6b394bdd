package diagnosis

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// VCubeNodeConfig configures the nodes of VCube over a network (VCubeNode). It is shared by
// every node of a system and never changed.
type VCubeNodeConfig struct {
	// N is the number of nodes, a power of two 2 … 64.
	N int
	// Delta is the message delay bound Δ in ticks (≥ 1): a test and its reply take at most 2Δ
	// ticks, and a round lasts RoundTicks = 2Δ + 1 ticks.
	Delta uint64
	// MaxRounds is the number of test rounds a node runs; 0: no end.
	MaxRounds uint64
	// Mutant is a broken variant (Mutants, MutantsNode), or none.
	Mutant mutant.Name
}

// RoundTicks is the length of a test round in ticks: 2Δ + 1, so that the reply to a test sent
// at the round's first tick arrives (by tick 2Δ) before the round's deadline
// (MutantRoundTwoDelta: 2Δ, the deadline falls in the tick the last replies may arrive in).
func (c *VCubeNodeConfig) RoundTicks() uint64 {
	if c.Mutant == MutantRoundTwoDelta {
		return 2 * c.Delta
	}
	return 2*c.Delta + 1
}

// LogN is log2 N, the number of rounds in a cycle s = 1 … log2 N.
func (c *VCubeNodeConfig) LogN() int { return bits.Len(uint(c.N)) - 1 }

// Validate reports what is wrong with the configuration: N not a power of two in 2 … 64, Δ = 0,
// an unknown mutant.
func (c *VCubeNodeConfig) Validate() error {
	if _, err := checkPow2(c.N); err != nil || c.N > 64 {
		return fmt.Errorf("diagnosis: vcube over a network: n = %d is not a power of two in 2 … 64", c.N)
	}
	if c.Delta == 0 {
		return errors.New("diagnosis: vcube over a network: Δ = 0 ticks, want ≥ 1")
	}
	if c.Mutant != mutant.None && !isNodeMutant(c.Mutant) {
		return fmt.Errorf("diagnosis: unknown mutant %q", c.Mutant)
	}
	return nil
}

// StartVCube is the call that starts a node's first test round (its schedule's only input).
type StartVCube struct{}

// AppendBinary appends the tag of StartVCube.
func (StartVCube) AppendBinary(b []byte) []byte { return append(b, tagStart) }

// String is "Start".
func (StartVCube) String() string { return "Start" }

// roundTimer is the id of the round timer: it ends a round and begins the next.
const roundTimer = 1

// VCubeNode is one node of VCube (thesis §3.4) running over a network of processes that
// crash and stop, in test rounds of RoundTicks ticks that every node starts at tick 0 (the
// call StartVCube). A test is a message pair (§3.3, after Jalote: "if the reply misses a
// timeout, the node is considered faulty"): in round s the node sends TEST to every j ∈ c(i, s)
// that it tests by the tester rule (vcubeTests, as the round model's VCube.Tests), a live node
// answers at once with REPLY carrying its timestamps, and at the round's deadline every tested
// node that did not answer is tested faulty. A reply is a fault-free outcome: the tester merges
// the tested node's timestamps by the round model's rule (vcubeMerge).
//
// Ambiguity: the thesis's rounds are synchronous and say nothing of messages. Here the tested
// node's reply carries its timestamps when the TEST arrives, which may already hold what it
// learned earlier in the same round; the round model (VCube.Round) copies the state of the
// round's start. The tester rule reads the beliefs of the round's start in both.
type VCubeNode struct {
	cfg *VCubeNodeConfig
	me  core.Rank
	// started: StartVCube was called; done: MaxRounds rounds ran.
	started, done bool
	// round counts the rounds begun; s is the current round's s (1 … log2 N), 0 before Start.
	round uint64
	s     int
	// ts[k] is the timestamp of node k: even fault-free, odd faulty, larger newer.
	ts []uint32
	// tested lists the nodes tested in the current round, pending those not yet answered.
	tested, pending core.RankSet
}

// NewVCubeNode returns node me of a system configured by cfg, believing every node fault-free
// (every timestamp 0). Errors: an invalid configuration (Validate), me outside 0 … N−1.
func NewVCubeNode(cfg *VCubeNodeConfig, me core.Rank) (*VCubeNode, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !me.Valid(cfg.N) {
		return nil, fmt.Errorf("diagnosis: node %d is outside 0 … %d", me, cfg.N-1)
	}
	return &VCubeNode{cfg: cfg, me: me, ts: make([]uint32, cfg.N)}, nil
}

// Round is the number of test rounds the node has begun (0 before Start).
func (v *VCubeNode) Round() uint64 { return v.round }

// Cycle is the number of rounds in a cycle s = 1 … log2 N.
func (v *VCubeNode) Cycle() int { return v.cfg.LogN() }

// S is the current round's s, 1 … log2 N (0 before Start).
func (v *VCubeNode) S() int { return v.s }

// Tested returns the nodes the node tests in the current round.
func (v *VCubeNode) Tested() core.RankSet { return v.tested.Clone() }

// Diagnosis returns the nodes the node believes faulty (an odd timestamp).
func (v *VCubeNode) Diagnosis() core.RankSet {
	var d core.RankSet
	for k, t := range v.ts {
		if t%2 == 1 && core.Rank(k) != v.me {
			d.Add(core.Rank(k))
		}
	}
	return d
}

// Timestamp returns the node's timestamp of node k.
func (v *VCubeNode) Timestamp(k core.Rank) uint32 { return v.ts[k] }

// Step applies one event: the call StartVCube, the round timer, a TEST or a REPLY. Errors (the
// state unchanged): a second Start, another input, the timer before Start or after the last
// round, another timer, a message of another protocol, a suspicion (VCube has no failure
// detector: its tests are its detector).
func (v *VCubeNode) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		if _, ok := ev.Input.(StartVCube); !ok || v.started {
			return out, fmt.Errorf("diagnosis: %v: call %v: want one Start", v.me, ev.Input)
		}
		v.started = true
		return v.beginRound(out), nil
	case core.EvTimer:
		if ev.Timer != roundTimer || !v.started || v.done {
			return out, fmt.Errorf("diagnosis: %v: timer %d not armed", v.me, ev.Timer)
		}
		v.endRound()
		if v.cfg.MaxRounds > 0 && v.round >= v.cfg.MaxRounds {
			v.done = true
			v.tested = core.RankSet{}
			return out, nil
		}
		return v.beginRound(out), nil
	case core.EvReceive:
		switch m := ev.Msg.(type) {
		case TestRequest:
			// §3.3: the tested node answers the test; a crashed one does not.
			return append(out, core.Send(ev.From, TestReply{S: m.S, TS: append([]uint32(nil), v.ts...)})), nil
		case TestReply:
			if len(m.TS) != v.cfg.N {
				return out, fmt.Errorf("diagnosis: %v: REPLY of %d entries, want %d", v.me, len(m.TS), v.cfg.N)
			}
			v.fromReply(ev.From, m)
			return out, nil
		}
	}
	return out, fmt.Errorf("diagnosis: %v: event %v has no rule", v.me, ev)
}

// beginRound begins the next round s (§3.4: s = 1, 2, …, log2 n, 1, …): the node tests every
// j ∈ c(i, s) it Tests by its current beliefs, sending TEST(s) in c(i, s)'s order, and arms the
// round's deadline.
func (v *VCubeNode) beginRound(out []core.Effect) []core.Effect {
	v.round++
	v.s = int((v.round-1)%uint64(v.cfg.LogN())) + 1
	v.tested = core.RankSet{}
	for _, j := range cluster(v.cfg.Mutant, v.me, v.s, v.cfg.N) {
		if vcubeTests(v.cfg.Mutant, v.me, j, v.s, v.cfg.N, v.ts) {
			v.tested.Add(j)
			out = append(out, core.Send(j, TestRequest{S: uint8(v.s)}))
		}
	}
	v.pending = v.tested.Clone()
	return append(out, core.Effect{Kind: core.EffSetTimer, Timer: roundTimer, Delay: v.cfg.RoundTicks()})
}

// endRound applies the round's deadline: every tested node that did not answer is tested
// faulty (§3.3, after Jalote: "if the reply misses a timeout, the node is considered faulty"), a
// new event when the node believed it fault-free: its timestamp is incremented (§3.4).
// MutantSilenceFaultFree leaves it as it was believed.
func (v *VCubeNode) endRound() {
	if v.cfg.Mutant != MutantSilenceFaultFree {
		v.pending.Each(func(j core.Rank) {
			if v.ts[j]%2 == 0 {
				v.ts[j]++
			}
		})
	}
	v.pending = core.RankSet{}
}

// fromReply applies j's answer to this round's test (§3.4): j is tested fault-free (a new event
// when it was believed faulty) and its newer entries are merged (vcubeMerge). A reply to no test of
// the current round (a late one, when a delay exceeded Δ) changes nothing.
func (v *VCubeNode) fromReply(j core.Rank, m TestReply) {
	if !v.pending.Has(j) || int(m.S) != v.s {
		return
	}
	v.pending.Remove(j)
	if v.ts[j]%2 == 1 {
		v.ts[j]++
	}
	vcubeMerge(v.cfg.Mutant, v.ts, m.TS, v.me, j)
}

// Clone returns a deep copy (the configuration is shared: it is never changed).
func (v *VCubeNode) Clone() core.Machine {
	c := *v
	c.ts = append([]uint32(nil), v.ts...)
	c.tested, c.pending = v.tested.Clone(), v.pending.Clone()
	return &c
}

// AppendBinary appends the canonical encoding: started, done, round, s, the timestamps, the
// tested and pending sets.
func (v *VCubeNode) AppendBinary(b []byte) []byte {
	b = core.AppendBool(core.AppendBool(b, v.started), v.done)
	b = core.AppendUint(core.AppendUint(b, v.round), uint64(v.s))
	for _, t := range v.ts {
		b = core.AppendUint(b, uint64(t))
	}
	return v.pending.AppendBinary(v.tested.AppendBinary(b))
}

// String summarises the node, e.g. "p0 round 4 s=1 ts=[0 1 0 0] tests {p1} waiting {}".
func (v *VCubeNode) String() string {
	var ts strings.Builder
	for k, t := range v.ts {
		if k > 0 {
			ts.WriteByte(' ')
		}
		fmt.Fprint(&ts, t)
	}
	return fmt.Sprintf("%v round %d s=%d ts=[%s] tests %v waiting %v", v.me, v.round, v.s, ts.String(), v.tested, v.pending)
}
