package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/registry"
)

// checkShardRefusal refuses the check flags a sharded search cannot merge
// exactly (checker.Split: DFS, partial-order reduction, checkpoints) or
// that mean nothing for one shard.
func checkShardRefusal(fs *flag.FlagSet) error {
	for _, name := range []string{"dfs", "por", "mutants", "checkpoint", "resume", "lassos"} {
		if isSet(fs, name) {
			return fmt.Errorf("--shard: not with --%s (a sharded check is a breadth-first search without partial-order reduction or checkpoints, see docs/scale-out.md)", name)
		}
	}
	return nil
}

// applyShard makes opt one shard of a split search.
func (s *shardFlags) applyShard(opt *checker.Options) {
	opt.Split = &checker.Split{Shard: s.k, Shards: s.n, Depth: s.splitDepth}
}

// writeCheckShard writes the result of one shard of a check to --result,
// and says so on stdout unless asJSON.
func (s *shardFlags) writeCheckShard(fs *flag.FlagSet, p *registry.Protocol, r registry.Runner, res *checker.Result, used []string, asJSON bool, stdout io.Writer) error {
	if res.Err != nil {
		return res.Err
	}
	if res.Fingerprints == nil && res.States > 0 {
		return errors.New("--shard: the search kept no visited set")
	}
	h := &shardHeader{Command: "check", Model: p.Name, Name: r.Name(), Params: shardParams(fs), Shard: s.k, Shards: s.n,
		Seconds: res.Seconds, PeakRSSMiB: peakRSSMiB(),
		Check: &shardCheck{Mode: "bfs", States: res.States, Transitions: res.Transitions, Depth: res.Depth, Complete: res.Complete,
			Stop: string(res.Stop), SplitDepth: s.splitDepth, SplitStates: res.SplitStates, SplitTransitions: res.SplitTransitions, InitTransitions: res.InitTransitions,
			Properties: used, Violations: res.Violations}}
	if h.Check.Violations == nil {
		h.Check.Violations = []*checker.Trace{}
	}
	if err := writeShard(s.result, h, res.Fingerprints, res.Expanded); err != nil {
		return err
	}
	if !asJSON {
		fmt.Fprintf(stdout, "shard %d/%d (split at depth %d, %d states up to it shared by every shard): result written to %s (%d bytes of fingerprints, %.2f bytes/state)\n",
			s.k, s.n, s.splitDepth, res.SplitStates, s.result, h.Check.FingerprintBytes, float64(h.Check.FingerprintBytes)/float64(max(res.States, 1)))
	}
	return nil
}

// shardVerdict is the exit of a check shard whose result is written: 0
// when it ran to its end, a violation included (the verdict is the
// merge's, and a scheduler's afterok dependency must still run the merge),
// 3 when it stopped early at a bound, a signal or its memory bound.
func shardVerdict(res *checker.Result) error {
	if res.Complete || res.Stop == checker.StopViolation {
		return nil
	}
	return errIncomplete
}
