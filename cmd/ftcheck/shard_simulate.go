package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ftkernel/ftkernel/registry"
)

// context returns ctx carrying the run log of this shard (registry.RunLog)
// when --shard is on, else ctx.
func (s *shardFlags) context(ctx context.Context) context.Context {
	if !s.on() {
		return ctx
	}
	s.log = registry.NewRunLog(s.k, s.n)
	return registry.WithRunLog(ctx, s.log)
}

// validateSim refuses --shard, before anything runs, for a model whose
// simulation does not consult the run log (registry.Protocol.ShardsSimulate).
func (s *shardFlags) validateSim(p *registry.Protocol) error {
	if !s.on() || p.ShardsSimulate {
		return nil
	}
	return fmt.Errorf("--shard: the simulation of %s is not split by run index (models whose simulations are: %s)", p.Name, shardedSimNames())
}

// shardedSimNames lists the models whose simulations take --shard.
func shardedSimNames() string {
	var names []string
	for _, p := range registry.All() {
		if p.Simulate != nil && p.ShardsSimulate {
			names = append(names, p.Name)
		}
	}
	return strings.Join(names, ", ")
}

// writeSimShard writes what one shard of a simulation recorded to
// --result; the exit status is 0 once it is written (the verdict is the
// merge's), 3 if the shard was interrupted. A simulation that never consulted the run log cannot be
// sharded: that is a usage error (nothing is written). Models that never
// consult it are refused earlier, by validateSim; this catches the modes of
// a sharded model that do not (correction's single runs, say).
func (s *shardFlags) writeSimShard(p *registry.Protocol, fs *flag.FlagSet, rep *registry.SimReport, asJSON bool, stdout io.Writer) error {
	if !s.log.Used() {
		return usageFor("ftcheck simulate "+p.Name+" -h", "simulate %s: --shard: this mode of the simulation is not split by run index (correction's campaigns are: --runs with --fault-rate, --table1, --section43, --fig1b; era's random walks are, its --scenario is not)", p.Name)
	}
	h := &shardHeader{Command: "simulate", Model: p.Name, Name: rep.Model, Params: shardParams(fs), Shard: s.k, Shards: s.n,
		Seconds: rep.Seconds, PeakRSSMiB: peakRSSMiB(), Sim: &shardSim{Campaigns: s.log.Campaigns, Interrupted: rep.Interrupted}}
	if err := writeShard(s.result, h, nil, nil); err != nil {
		return err
	}
	runs := 0
	for _, c := range s.log.Campaigns {
		runs += len(c)
	}
	if !asJSON {
		fmt.Fprintf(stdout, "shard %d/%d: %d runs of %d sub-campaigns recorded to %s, %.2fs\n", s.k, s.n, runs, len(s.log.Campaigns), s.result, rep.Seconds)
	}
	if rep.Interrupted {
		return errIncomplete
	}
	return nil
}
