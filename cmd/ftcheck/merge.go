package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ftkernel/ftkernel/registry"
)

// cmdMerge is `ftcheck merge [--json] [--out DIR] FILE…`: it combines the
// --result files of the shards of one sharded check or simulation and
// prints what the unsharded command prints.
func cmdMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON summary object, with the keys of the unsharded command's --json")
	out := fs.String("out", "out", "directory for the counterexample traces of a merged check or simulation (created if missing)")
	const help = "ftcheck merge -h"
	if err := parseFlags(fs, args, stdout, "merge", "ftcheck merge [--json] [--out DIR] FILE…\ncombine the --result files of every shard (K/N, K = 0 … N−1) of one sharded check or simulation"); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageFor(help, "%v", errNoShards)
	}
	files := make([]*shardFile, 0, fs.NArg())
	defer func() {
		for _, f := range files {
			f.close()
		}
	}()
	for _, path := range fs.Args() {
		f, err := openShard(path)
		if err != nil {
			return usageFor(help, "merge: %v", err)
		}
		files = append(files, f)
	}
	if err := sameRun(files); err != nil {
		return usageFor(help, "merge: %v", err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].h.Shard < files[j].h.Shard })
	if files[0].h.Command == "check" {
		return mergeCheck(files, *out, *asJSON, stdout, stderr)
	}
	return mergeSimulate(files, *out, *asJSON, stdout, stderr)
}

// sameRun refuses files that are not exactly the shards 0 … N−1 of one run:
// the same command, model, result-determining flags (seed included) and
// shard count, each shard once.
func sameRun(files []*shardFile) error {
	first := files[0]
	seen := map[int]string{}
	for _, f := range files {
		h := &f.h
		switch {
		case h.Command != first.h.Command:
			return fmt.Errorf("%s is a shard of ftcheck %s, %s of ftcheck %s", f.path, h.Command, first.path, first.h.Command)
		case h.Model != first.h.Model:
			return fmt.Errorf("%s is a shard of model %s, %s of model %s", f.path, h.Model, first.path, first.h.Model)
		case h.Shards != first.h.Shards:
			return fmt.Errorf("%s is shard %d of %d, %s shard %d of %d: different shard counts", f.path, h.Shard, h.Shards, first.path, first.h.Shard, first.h.Shards)
		case !maps.Equal(h.Params, first.h.Params):
			return fmt.Errorf("%s and %s were run with different flags (%s)", f.path, first.path, paramsDiff(h.Params, first.h.Params))
		case (h.Check == nil) == (h.Sim == nil) || (h.Command == "check") != (h.Check != nil):
			return fmt.Errorf("%s: a damaged shard result (command %s)", f.path, h.Command)
		case h.Shard < 0 || h.Shard >= h.Shards:
			return fmt.Errorf("%s: shard %d of %d", f.path, h.Shard, h.Shards)
		}
		if h.Check != nil && h.Check.SplitDepth != first.h.Check.SplitDepth {
			return fmt.Errorf("%s and %s split at depths %d and %d", f.path, first.path, h.Check.SplitDepth, first.h.Check.SplitDepth)
		}
		if other, dup := seen[h.Shard]; dup {
			return fmt.Errorf("shard %d/%d twice: %s and %s", h.Shard, h.Shards, other, f.path)
		}
		seen[h.Shard] = f.path
	}
	var missing []string
	for k := range first.h.Shards {
		if _, ok := seen[k]; !ok {
			missing = append(missing, fmt.Sprint(k))
			if len(missing) == 10 {
				missing = append(missing, "…")
				break
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing shards of %d: %s", first.h.Shards, strings.Join(missing, ", "))
	}
	return nil
}

// paramsDiff names the flags whose values differ between a and b.
func paramsDiff(a, b map[string]string) string {
	var d []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if bv, ok := b[k]; !ok || bv != a[k] {
			d = append(d, fmt.Sprintf("--%s %s vs %s", k, a[k], bv))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[k]; !ok {
			d = append(d, fmt.Sprintf("--%s only in one", k))
		}
	}
	return strings.Join(d, ", ")
}

// lookupShardModel finds the registered model of a shard result.
func lookupShardModel(h *shardHeader) (*registry.Protocol, error) {
	return registry.Lookup(h.Model)
}
