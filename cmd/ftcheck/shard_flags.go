package main

import (
	"flag"
	"fmt"
	"maps"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/registry"
)

// shardFlags are --shard K/N, --result FILE and (check) --split-depth D.
type shardFlags struct {
	spec       string
	result     string
	splitDepth int
	k, n       int
	log        *registry.RunLog // simulate: the shard's records
}

// bindShard declares the shard flags of cmd ("check" or "simulate").
func bindShard(fs *flag.FlagSet, cmd string) *shardFlags {
	s := &shardFlags{}
	what := "the runs whose index i has i mod N = K, every one of them (also after a violating run), recorded for ftcheck merge"
	if cmd == "check" {
		what = "BFS to --split-depth, then only the states of that level whose fingerprint falls in part K, and all they reach; the visited set is kept for ftcheck merge"
		fs.IntVar(&s.splitDepth, "split-depth", 0, "with --shard: the BFS level whose states are split between the shards (0: the initial states); pick one with many more states than shards")
	}
	fs.StringVar(&s.spec, "shard", "", "K/N: run shard K (0 … N−1) of N: "+what+"; needs --result")
	fs.StringVar(&s.result, "result", "", "with --shard: write the shard's result to this file (atomically: a temporary file renamed), for ftcheck merge")
	return s
}

// on reports whether --shard was given.
func (s *shardFlags) on() bool { return s.spec != "" }

// validate checks the shard flags after parsing.
func (s *shardFlags) validate(fs *flag.FlagSet) error {
	if !s.on() {
		for _, name := range []string{"result", "split-depth"} {
			if isSet(fs, name) {
				return fmt.Errorf("--%s: only with --shard K/N", name)
			}
		}
		return nil
	}
	var err error
	if s.k, s.n, err = checker.ParseShard(s.spec); err != nil {
		return fmt.Errorf("--shard %v", err)
	}
	if s.result == "" {
		return fmt.Errorf("--shard %s: name the result file with --result FILE", s.spec)
	}
	if s.splitDepth < 0 {
		return fmt.Errorf("--split-depth %d: want a BFS level ≥ 0", s.splitDepth)
	}
	return nil
}

// runOnly are the flags that do not change a run's results (how it runs,
// where it writes, how it reports): they may differ between the shards
// of one run.
var runOnly = map[string]bool{
	"shard": true, "result": true, "out": true, "json": true, "quiet": true, "workers": true,
	"max-memory": true, "spill": true, "queue-memory": true, "whole-states": true,
}

// shardParams are the flag values that determine a shard's results, which
// every shard of a run must share.
func shardParams(fs *flag.FlagSet) map[string]string {
	p := registry.FlagParams(fs)
	maps.DeleteFunc(p, func(k, _ string) bool { return runOnly[k] })
	return p
}
