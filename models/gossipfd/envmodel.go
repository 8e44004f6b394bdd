package gossipfd

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/props"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// EnvParams is the detector in the message-passing environment under
// bounded delay (checker/env, Timing BoundedDelay): a global clock in
// ticks, every message delivered within [t+1, t+Delta], timers firing at
// their deadlines, every order of the steps of a tick explored, and up to
// Crashes crashes at any step. Node.MaxRounds bounds the run (required:
// heartbeats grow with every round).
type EnvParams struct {
	Node    fd.Config
	Crashes int
	Delta   int
}

// NewEnvModel builds the environment model. Its properties are accuracy
// (no live host declared failed) and no-false-suspicion (no live host
// suspected, ping phase included), both props.StrongAccuracy. Completeness
// needs a crash early enough in the bounded run and is checked in the
// round model (CheckModel).
func NewEnvModel(p EnvParams) (*env.Model, error) {
	if p.Node.MaxRounds == 0 {
		return nil, fmt.Errorf("gossipfd: the environment check needs a bounded run (Node.MaxRounds > 0)")
	}
	if err := p.Node.Validate(); err != nil {
		return nil, err
	}
	if p.Node.Ping && p.Node.PingTimeout <= 2*uint64(p.Delta) {
		return nil, fmt.Errorf("gossipfd: ping timeout %d ticks ≤ 2Δ = %d: a live host's PONG could come too late", p.Node.PingTimeout, 2*p.Delta)
	}
	cfg := p.Node
	starts := make([][]core.Input, cfg.N)
	for h := range starts {
		starts[h] = []core.Input{fd.Start{}}
	}
	declared := func(w *env.World, a, b core.Rank) bool { return w.Node(a).(*fd.Node).Declared().Has(b) }
	suspects := func(w *env.World, a, b core.Rank) bool { return w.Node(a).(*fd.Node).Suspects(b) }
	return env.New(env.Config{
		Name:      fmt.Sprintf("gossipfd variant=%v cleanup=%d ping=%v t-gossip=%d max-rounds=%d", cfg.Variant, cfg.Cleanup, cfg.Ping, cfg.TGossip, cfg.MaxRounds),
		N:         cfg.N,
		Crashes:   p.Crashes,
		Detector:  env.DetectorNone,
		Timing:    env.BoundedDelay,
		Delta:     p.Delta,
		Schedules: [][][]core.Input{starts},
		NewNode: func(h core.Rank, _ int) core.Machine {
			n, _ := fd.New(h, &cfg)
			return n
		},
		Properties: []checker.Property[*env.World]{
			props.StrongAccuracy("accuracy", "no live host is declared failed (§5.3: no false detection)", declared),
			props.StrongAccuracy("no-false-suspicion", "no live host is suspected, ping phase included (§5.2's FD failure)", suspects),
		},
		Params: map[string]string{"variant": cfg.Variant.String()},
	})
}
