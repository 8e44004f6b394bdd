package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/registry"
)

// mergeSimulate merges the shards of a simulation (files sorted by
// shard): the shards' run records are replayed, in run-index order, through
// the model's own campaign (registry.RunLog), which aggregates them as the
// unsharded campaign does; only seconds (here the shards' sum) differ. The
// first violation's trace, when the campaign gives one, is saved to outPath.
func mergeSimulate(files []*shardFile, outPath string, asJSON bool, stdout, stderr io.Writer) error {
	const help = "ftcheck merge -h"
	first := files[0].h
	p, err := lookupShardModel(&first)
	if err != nil {
		return usageFor(help, "merge: %v", err)
	}
	if p.Simulate == nil {
		return usageFor(help, "merge: model %s has no simulation", p.Name)
	}
	var campaigns []map[int]json.RawMessage
	var seconds float64
	for _, f := range files {
		s := f.h.Sim
		if len(s.Campaigns) != len(first.Sim.Campaigns) {
			return usageFor(help, "merge: %s recorded %d sub-campaigns, %s %d", f.path, len(s.Campaigns), files[0].path, len(first.Sim.Campaigns))
		}
		if s.Interrupted {
			return usageFor(help, "merge: %s (shard %d/%d) was interrupted before its runs were done: run it again", f.path, f.h.Shard, f.h.Shards)
		}
		seconds += f.h.Seconds
		for c, runs := range s.Campaigns {
			if c == len(campaigns) {
				campaigns = append(campaigns, map[int]json.RawMessage{})
			}
			for i, rec := range runs {
				if i%f.h.Shards != f.h.Shard {
					return usageFor(help, "merge: %s (shard %d/%d) recorded run %d, which is not its own", f.path, f.h.Shard, f.h.Shards, i)
				}
				campaigns[c][i] = rec
			}
		}
	}
	fs := flag.NewFlagSet("merge "+p.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	run := p.Simulate(fs)
	for _, k := range slices.Sorted(maps.Keys(first.Params)) {
		if err := fs.Set(k, first.Params[k]); err != nil {
			return usageFor(help, "merge: the shards' flag --%s=%s: %v", k, first.Params[k], err)
		}
	}
	log := registry.ReplayLog(campaigns)
	log.Seconds = seconds
	rep, err := run(registry.WithRunLog(context.Background(), log), func(string) {})
	if err != nil {
		return usageFor(help, "merge: %v", err)
	}
	rep.Seconds = seconds
	if rep.Trace != nil {
		o, err := prepareOut(outPath)
		if err != nil {
			return usageFor(help, "merge: %v", err)
		}
		defer o.done()
		if err := saveSimViolation(o, p.Name, rep, asJSON, stdout, stderr); err != nil {
			return err
		}
	}
	if asJSON {
		doc := map[string]any{}
		maps.Copy(doc, rep.Figures)
		maps.Copy(doc, map[string]any{"model": rep.Model, "mode": rep.Mode, "seed": rep.Seed, "complete": !rep.Interrupted,
			"seconds": rep.Seconds, "violations": rep.Violations, "stop": simStop(rep, false), "shards": first.Shards})
		if err := json.NewEncoder(stdout).Encode(doc); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "ftcheck merge: simulate %s (%d shards)\n", p.Name, first.Shards)
		fmt.Fprintf(stdout, "seed %d, %.2fs summed over the shards\n%s", rep.Seed, rep.Seconds, rep.Text)
		if !strings.HasSuffix(rep.Text, "\n") {
			fmt.Fprintln(stdout)
		}
	}
	return verdictOf(len(rep.Violations) > 0, !rep.Interrupted)
}
