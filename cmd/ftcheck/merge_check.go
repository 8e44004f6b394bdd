package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/registry"
)

// mergeSummary is the --json object of a merged check: checkSummary's
// keys, and the shards'.
type mergeSummary struct {
	Model       string                  `json:"model"`
	Mode        string                  `json:"mode"`
	States      int64                   `json:"states"`
	Transitions int64                   `json:"transitions"`
	MaxDepth    int                     `json:"max_depth"`
	Complete    bool                    `json:"complete"`
	Seconds     float64                 `json:"seconds"`
	Violations  []registry.ViolationRef `json:"violations"`
	Stop        string                  `json:"stop"`
	Properties  []string                `json:"properties"`
	Shards      int                     `json:"shards"`
	SplitDepth  int                     `json:"split_depth"`
	// Overlap is the sum of the shards' distinct states less the union;
	// OverlapPrefix is its part due to the states up to the split depth,
	// which every shard holds.
	Overlap       int64      `json:"overlap"`
	OverlapPrefix int64      `json:"overlap_prefix"`
	PerShard      []shardRow `json:"per_shard"`
}

// shardRow is one shard's figures in a merge.
type shardRow struct {
	Shard       int     `json:"shard"`
	States      int64   `json:"states"`
	Transitions int64   `json:"transitions"`
	Complete    bool    `json:"complete"`
	Seconds     float64 `json:"seconds"`
	PeakRSSMiB  float64 `json:"peak_rss_mib"`
	Bytes       int64   `json:"fingerprint_bytes"`
}

// mergeCheck merges the shards of a check (files sorted by shard).
func mergeCheck(files []*shardFile, outPath string, asJSON bool, stdout, stderr io.Writer) error {
	first := files[0].h
	p, err := lookupShardModel(&first)
	if err != nil {
		return usageFor("ftcheck merge -h", "merge: %v", err)
	}
	sum := mergeSummary{Model: first.Name, Mode: "bfs", Complete: true, Violations: []registry.ViolationRef{}, Properties: first.Check.Properties,
		Shards: first.Shards, SplitDepth: first.Check.SplitDepth}
	streams := make([]func() (uint64, bool), len(files))
	readers := make([]*checker.FingerprintReader, len(files))
	shortest := map[string]*checker.Trace{}
	var order []string
	var stops []string
	for i, f := range files {
		c := f.h.Check
		readers[i] = f.fingerprints()
		streams[i] = readers[i].Next
		sum.MaxDepth = max(sum.MaxDepth, c.Depth)
		sum.Complete = sum.Complete && c.Complete
		sum.Seconds += f.h.Seconds
		sum.OverlapPrefix += c.SplitStates
		if c.Stop != string(checker.StopDone) && c.Stop != string(checker.StopViolation) {
			stops = append(stops, c.Stop)
		}
		for _, tr := range c.Violations {
			name := tr.Violation.Property
			if old, ok := shortest[name]; !ok || len(tr.Steps) < len(old.Steps) {
				if !ok {
					order = append(order, name)
				}
				shortest[name] = tr
			}
		}
		sum.PerShard = append(sum.PerShard, shardRow{Shard: f.h.Shard, States: c.States, Transitions: c.Transitions, Complete: c.Complete,
			Seconds: f.h.Seconds, PeakRSSMiB: f.h.PeakRSSMiB, Bytes: c.FingerprintBytes})
	}
	sum.States, sum.Overlap = checker.MergeFingerprints(streams)
	for i, r := range readers {
		if err := r.Err(); err != nil {
			return usageFor("ftcheck merge -h", "merge: %s: %v", files[i].path, err)
		}
	}
	// The unsharded transitions: the initial states, and the out-degree of
	// every state some shard expanded, once (checker.MergeExpansions).
	expansions := make([]func() (checker.Expansion, bool), len(files))
	ereaders := make([]*checker.ExpansionReader, len(files))
	for i, f := range files {
		ereaders[i] = f.expansions()
		expansions[i] = ereaders[i].Next
	}
	outs, err := checker.MergeExpansions(expansions)
	if err != nil {
		return usageFor("ftcheck merge -h", "merge: %v", err)
	}
	for i, r := range ereaders {
		if err := r.Err(); err != nil {
			return usageFor("ftcheck merge -h", "merge: %s: %v", files[i].path, err)
		}
	}
	sum.Transitions = first.Check.InitTransitions + outs
	// Every shard holds the prefix; it is counted once in the union.
	sum.OverlapPrefix -= first.Check.SplitStates
	switch {
	case len(shortest) > 0:
		sum.Stop = string(checker.StopViolation)
	case len(stops) > 0:
		sum.Stop = stops[0]
	default:
		sum.Stop = string(checker.StopDone)
	}
	if !asJSON {
		fmt.Fprintf(stdout, "ftcheck merge: check %s: %s (%d shards, split at depth %d)\n", first.Model, first.Name, first.Shards, first.Check.SplitDepth)
	}
	var traces []*checker.Trace
	for _, name := range order {
		traces = append(traces, shortest[name])
	}
	if len(traces) > 0 {
		o, err := prepareOut(outPath)
		if err != nil {
			return usageFor("ftcheck merge -h", "merge: %v", err)
		}
		defer o.done()
		for _, tr := range shortestFirst(traces) {
			header := fmt.Sprintf("\nVIOLATION of %s (%s) after %d steps:\n", tr.Violation.Property, tr.Violation.Kind, len(tr.Steps))
			ref, err := reportViolation(o, p.Name, tr, header, asJSON, stdout, stderr)
			if err != nil {
				return err
			}
			sum.Violations = append(sum.Violations, ref)
		}
	}
	if asJSON {
		if err := json.NewEncoder(stdout).Encode(sum); err != nil {
			return err
		}
		return verdictOf(len(sum.Violations) > 0, sum.Complete)
	}
	fmt.Fprintf(stdout, "\n%d distinct states (the union of the shards' visited sets), %d generated, depth %d, complete=%v (%s), %.2fs summed over the shards\n",
		sum.States, sum.Transitions, sum.MaxDepth, sum.Complete, sum.Stop, sum.Seconds)
	fmt.Fprintf(stdout, "overlap: %d states held by more than one shard, counted once per extra shard (%d of them the %d states up to the split depth, which every shard holds)\n",
		sum.Overlap, sum.OverlapPrefix, first.Check.SplitStates)
	fmt.Fprintf(stdout, "generated: the initial states, and each state's transitions once over the union (the shards below generate a state's again when two reach it)\n")
	fmt.Fprintf(stdout, "properties: %s\n", strings.Join(sum.Properties, ", "))
	fmt.Fprintf(stdout, "  %5s %12s %14s %8s %9s %9s %12s\n", "shard", "states", "generated", "complete", "seconds", "peak MiB", "fp bytes")
	for _, r := range sum.PerShard {
		fmt.Fprintf(stdout, "  %5d %12d %14d %8v %9.2f %9.0f %12d\n", r.Shard, r.States, r.Transitions, r.Complete, r.Seconds, r.PeakRSSMiB, r.Bytes)
	}
	if len(sum.Violations) == 0 {
		fmt.Fprintf(stdout, "all checked properties hold%s\n", map[bool]string{true: "", false: " (within the bounds reached: incomplete, nothing proved)"}[sum.Complete])
	}
	return verdictOf(len(sum.Violations) > 0, sum.Complete)
}

// shortestFirst orders counterexamples by length, keeping the order of
// equal ones (as checker.Result.Violations is).
func shortestFirst(trs []*checker.Trace) []*checker.Trace {
	out := append([]*checker.Trace(nil), trs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j].Steps) < len(out[j-1].Steps); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
