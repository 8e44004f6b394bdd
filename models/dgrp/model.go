package dgrp

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	dg "github.com/ftkernel/ftkernel/statemachine/dgrp"
)

// Params are the parameters of a DGRP model.
type Params struct {
	N, Zeta, Rounds int
	// Imperfect: a slow test is one tester's measurement, so two testers
	// may disagree about one process in one round (§4.1). Otherwise a slow
	// process is slow for every tester of that round.
	Imperfect bool
	// Slow is the budget of slow test outcomes in a run (environment
	// choices): (tester, tested, round) triples when Imperfect, (tested,
	// round) pairs otherwise.
	Slow int
	// Loss is the budget of lost messages (checker/env LossAny).
	Loss int
	// IgnoreWhenOut is dg.Config.IgnoreWhenOut (AMBIGUOUS-2, reading a).
	IgnoreWhenOut bool
	// Consensus is the re-admission consensus: "paxos" (or "") is
	// statemachine/paxos (Paxos), "oracle" the smaller model Oracle.
	Consensus string
	Mutant    mutant.Name
	// Scenario, when not nil, replaces the alternatives of Outcomes by one:
	// Scenario[i] is tester i's slow tests.
	Scenario [][]dg.Slow
}

// Config is the statemachine's configuration.
func (p Params) Config() dg.Config {
	return dg.Config{N: p.N, Zeta: p.Zeta, Rounds: p.Rounds, IgnoreWhenOut: p.IgnoreWhenOut, Lossy: p.Loss > 0,
		Consensus: p.consensus(), Mutant: p.Mutant}
}

// consensus is the dg.Consensus p.Consensus names.
func (p Params) consensus() dg.Consensus {
	if p.Consensus == ConsensusOracle {
		return Oracle{}
	}
	return Paxos{}
}

// The values of Params.Consensus.
const (
	ConsensusPaxos  = "paxos"
	ConsensusOracle = "oracle"
)

// Outcomes lists every assignment of at most p.Slow slow tests, as one
// Start call per process: the alternatives the checker explores (one
// initial state each).
func (p Params) Outcomes() [][][]core.Input {
	if p.Scenario == nil && p.Alternatives() > MaxAlternatives {
		return nil
	}
	if p.Scenario != nil {
		alt := make([][]core.Input, p.N)
		for i := range alt {
			var s []dg.Slow
			if i < len(p.Scenario) {
				s = p.Scenario[i]
			}
			alt[i] = []core.Input{dg.Start{Slow: s}}
		}
		return [][][]core.Input{alt}
	}
	type item struct {
		tester, peer core.Rank
		round        uint32
	}
	var items []item
	for r := 1; r <= p.Rounds; r++ {
		for j := range core.Rank(p.N) {
			if !p.Imperfect {
				items = append(items, item{tester: core.NoRank, peer: j, round: uint32(r)})
				continue
			}
			for i := range core.Rank(p.N) {
				if i != j {
					items = append(items, item{tester: i, peer: j, round: uint32(r)})
				}
			}
		}
	}
	var out [][][]core.Input
	var pick []int
	var rec func(from int)
	rec = func(from int) {
		starts := make([]dg.Start, p.N)
		for _, k := range pick {
			it := items[k]
			for i := range core.Rank(p.N) {
				if i != it.peer && (it.tester == core.NoRank || it.tester == i) {
					starts[i].Slow = append(starts[i].Slow, dg.Slow{Round: it.round, Peer: it.peer})
				}
			}
		}
		alt := make([][]core.Input, p.N)
		for i := range alt {
			alt[i] = []core.Input{starts[i]}
		}
		out = append(out, alt)
		if len(pick) == p.Slow {
			return
		}
		for k := from; k < len(items); k++ {
			pick = append(pick, k)
			rec(k + 1)
			pick = pick[:len(pick)-1]
		}
	}
	rec(0)
	return out
}

// MaxAlternatives bounds the number of outcome vectors a check explores.
const MaxAlternatives = 100_000

// Alternatives is the number of outcome vectors Outcomes lists: the
// subsets of at most Slow of the slow-test items (capped above
// MaxAlternatives).
func (p Params) Alternatives() int64 {
	items := int64(p.N * p.Rounds)
	if p.Imperfect {
		items *= int64(p.N - 1)
	}
	total, c := int64(0), int64(1)
	for k := int64(0); k <= int64(p.Slow) && k <= items; k++ {
		if k > 0 {
			c = c * (items - k + 1) / k
		}
		total += c
		if total > MaxAlternatives {
			return MaxAlternatives + 1
		}
	}
	return total
}

// NewModel builds the environment of p: lock-step rounds (a test interval
// step per round, every message of a round delivered or lost before the
// next), lossy channels with budget p.Loss, no crashes (a crashed process
// is one that fails every test: Slow), and the alternatives of Outcomes.
func NewModel(p Params) (*env.Model, error) {
	cfg := p.Config()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if p.Scenario == nil && p.Alternatives() > MaxAlternatives {
		return nil, fmt.Errorf("--slow %d: more than %d outcome vectors for n=%d rounds=%d imperfect=%v; lower --slow, --rounds or --n", p.Slow, MaxAlternatives, p.N, p.Rounds, p.Imperfect)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "dgrp zeta=%d rounds=%d imperfect=%v slow=%d", p.Zeta, p.Rounds, p.Imperfect, p.Slow)
	if p.IgnoreWhenOut {
		b.WriteString(" ignore-when-out")
	}
	if p.Consensus == ConsensusOracle {
		b.WriteString(" consensus=oracle")
	}
	if p.Mutant != mutant.None {
		b.WriteString(" mutant=" + string(p.Mutant))
	}
	c := env.Config{
		Name: b.String(), N: p.N, Network: env.Unordered, Detector: env.DetectorNone, Timing: env.LockStepRounds,
		NewNode: func(r core.Rank, _ int) core.Machine {
			n, err := dg.New(r, cfg)
			if err != nil {
				panic(err) // validated above with the same config
			}
			return n
		},
		Schedules:  p.Outcomes(),
		Properties: Properties(p),
		Codec: env.Codec{
			Node:    func(b []byte, r core.Rank, _ int) (core.Machine, error) { return dg.DecodeNode(b, r, cfg) },
			Message: func(b []byte) (core.Message, error) { return dg.DecodeMessage(b, p.N, cfg.Consensus) },
		},
	}
	if p.Loss > 0 {
		c.Loss, c.Losses = env.LossAny, p.Loss
	}
	return env.New(c)
}
