package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/registry"
)

// checkSummary is the --json object of `ftcheck check`.
type checkSummary struct {
	Model          string                  `json:"model"`
	Mode           string                  `json:"mode"`
	States         int64                   `json:"states"`
	Transitions    int64                   `json:"transitions"`
	MaxDepth       int                     `json:"max_depth"`
	Complete       bool                    `json:"complete"`
	Seconds        float64                 `json:"seconds"`
	Violations     []registry.ViolationRef `json:"violations"`
	Stop           string                  `json:"stop"`
	Workers        int                     `json:"workers"`
	GeneratedPerS  float64                 `json:"generated_per_sec"`
	BytesPerState  float64                 `json:"bytes_per_state"`
	CollisionProb  float64                 `json:"collision_probability"`
	PropertiesUsed []string                `json:"properties"`
	// POR: partial-order reduction was used (--por); Slept transitions were
	// skipped (Transitions + Slept is the unreduced count on a complete
	// run), Reexpanded states expanded again; PORNote says why --por had
	// no effect.
	POR        bool   `json:"por"`
	Slept      int64  `json:"slept,omitempty"`
	Reexpanded int64  `json:"reexpanded,omitempty"`
	PORNote    string `json:"por_note,omitempty"`
	// Bounds: for each eventually property that holds on a complete run,
	// the longest a run waits for it (steps, and time: ticks under the
	// bounded-delay timing).
	Bounds []checker.Bound `json:"bounds,omitempty"`
	// ResumedSeconds, after --resume, is the part of Seconds spent by the
	// earlier runs up to the checkpoint (Seconds and GeneratedPerS are
	// cumulative over every run of the search).
	ResumedSeconds float64 `json:"resumed_seconds,omitempty"`
	// Mutants are the rows of --mutants.
	Mutants []mutantRow `json:"mutants,omitempty"`
}

// modelFlags parses "MODEL [flags]" with the model's own flags plus extra,
// for the command cmd ("check", "simulate"). "cmd -h" without a model
// lists the models and extra's flags; "cmd MODEL -h" lists both sets of
// flags; both return errHelp.
func modelFlags(cmd string, args []string, stdout io.Writer, extra func(fs *flag.FlagSet)) (*registry.Protocol, *flag.FlagSet, registry.Builder, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if wantsHelp(args) {
			fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
			extra(fs)
			printFlags(fs, stdout, fmt.Sprintf("ftcheck %s MODEL [model flags] [%s flags]\nmodels: %s (their flags: ftcheck %s MODEL -h)", cmd, cmd, modelNames(), cmd))
			return nil, nil, nil, errHelp
		}
		return nil, nil, nil, usageFor("ftcheck "+cmd+" -h", "%s: name a model (%s)", cmd, modelNames())
	}
	p, err := registry.Lookup(args[0])
	if err != nil {
		return nil, nil, nil, usageFor("ftcheck "+cmd+" -h", "%s: %v", cmd, err)
	}
	fs := flag.NewFlagSet(cmd+" "+p.Name, flag.ContinueOnError)
	b := p.Define(fs)
	extra(fs)
	if err := parseFlags(fs, args[1:], stdout, cmd+" "+p.Name, "ftcheck "+cmd+" "+p.Name+" [flags]"); err != nil {
		return nil, nil, nil, err
	}
	if fs.NArg() > 0 {
		return nil, nil, nil, usageFor("ftcheck "+cmd+" "+p.Name+" -h", "%s %s: unexpected argument %q", cmd, p.Name, fs.Arg(0))
	}
	return p, fs, b, nil
}

// wantsHelp reports whether args ask for help (-h, -help, --help).
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help", "--h":
			return true
		}
	}
	return false
}

// modelNames lists the registered models, comma-separated.
func modelNames() string {
	var names []string
	for _, p := range registry.All() {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// maxWorkers bounds --workers.
const maxWorkers = 1024

func cmdCheck(args []string, stdout, stderr io.Writer) error {
	var workers, maxDepth int
	var maxStates int64
	var property, out string
	var asJSON, quiet, mutants, por, dfs, symmetry, lassos, shrink bool
	var maxMemoryMB int64
	var scale *scaleFlags
	var forgetUnsupported bool
	var shard *shardFlags
	p, fs, build, err := modelFlags("check", args, stdout, func(fs *flag.FlagSet) {
		scale = bindScale(fs)
		shard = bindShard(fs, "check")
		if fs.Lookup("forget-crashed") == nil {
			// The models that forget crashed processes define the flag
			// themselves; the others refuse it below.
			fs.BoolVar(&forgetUnsupported, "forget-crashed", false, "forget a crashed process's state (not supported by this model: era, correction, gossipfd, replica, ringfd and eventlogger have it)")
		}
		fs.BoolVar(&mutants, "mutants", false, "after the check, check every mutant at the same bounds and print which property catches it; a surviving mutant is a failure (exit 1); not with --mutant")
		fs.IntVar(&workers, "workers", 0, fmt.Sprintf("parallel workers, 0 to %d (0: one per CPU); results do not depend on it", maxWorkers))
		fs.Int64Var(&maxStates, "max-states", 0, "stop after this many distinct states (0: no bound); a stop there is incomplete (exit 3)")
		fs.IntVar(&maxDepth, "max-depth", 0, "do not expand states deeper than this (0: no bound); a run that reaches it is incomplete (exit 3)")
		fs.StringVar(&property, "property", "", "check only these properties (comma-separated), expected-to-fail ones included (default: every property not expected to fail)")
		fs.StringVar(&out, "out", "out", "directory for counterexample traces (created if missing; checked before the search)")
		fs.BoolVar(&asJSON, "json", false, "print one JSON summary object")
		fs.BoolVar(&quiet, "quiet", false, "no progress lines")
		fs.BoolVar(&dfs, "dfs", false, "depth-first search: far less memory for the queue; counterexamples are not the shortest (see --shrink)")
		fs.BoolVar(&symmetry, "symmetry", false, "symmetry reduction by the model's canonical representative (models that have one, e.g. twophase; refused on the others)")
		fs.BoolVar(&lassos, "lassos", false, "with --dfs: report cycles of non-quiescent states (livelocks) as lassos")
		fs.BoolVar(&shrink, "shrink", false, "shrink counterexamples by delta debugging (useful with --dfs)")
		fs.Int64Var(&maxMemoryMB, "max-memory", 0, "stop gracefully (complete=false, exit 3) when the Go heap or the resident set reaches this many MiB (0: the memory available at start — the smallest of the process's cgroup limits less what others use in them, and MemAvailable plus this process's resident set — minus a margin; -1: no bound)")
		fs.BoolVar(&por, "por", false, "partial-order reduction: sleep sets in BFS (fewer transitions, the same states), persistent sets with --dfs (fewer states, for models that have them); the same verdicts; counterexamples may be longer than the shortest")
	})
	if err != nil {
		return err
	}
	help := "ftcheck check " + p.Name + " -h"
	if forgetUnsupported {
		return usageFor(help, "check %s: --forget-crashed: %s does not forget crashed processes (only the message-passing models whose nodes have a Forget do: era, correction, gossipfd, replica, ringfd, eventlogger)", p.Name, p.Name)
	}
	if err := checkGenericFlags(fs); err != nil {
		return usageFor(help, "check %s: %v", p.Name, err)
	}
	if err := shard.validate(fs); err == nil && shard.on() {
		if err := checkShardRefusal(fs); err != nil {
			return usageFor(help, "check %s: %v", p.Name, err)
		}
	} else if err != nil {
		return usageFor(help, "check %s: %v", p.Name, err)
	}
	r, err := build()
	if err != nil {
		return usageFor(help, "check %s: %v", p.Name, err)
	}
	if symmetry && !r.Symmetric() {
		return usageFor(help, "check %s: --symmetry: this model has no symmetry to reduce by (%s); check it without --symmetry", p.Name, r.Name())
	}
	var names []string
	if isSet(fs, "property") {
		if names, err = selectedProperties(r, property); err != nil {
			return usageFor("ftcheck list", "check %s: %v", p.Name, err)
		}
	}
	opt := checker.Options{Workers: workers, MaxDepth: maxDepth, MaxStates: maxStates, ProgressEvery: 2 * time.Second, POR: por,
		Symmetry: symmetry, Lassos: lassos, Shrink: shrink, MaxMemory: maxMemoryMB << 20, Properties: names}
	if dfs {
		opt.Mode = checker.DepthFirst
	}
	o, err := prepareOut(out)
	if err != nil {
		return usageFor(help, "check %s: %v", p.Name, err)
	}
	defer o.done()
	scale.apply(&opt)
	if shard.on() {
		shard.applyShard(&opt)
	}
	// Ctrl-C or SIGTERM stops the search gracefully: it reports
	// complete=false with everything found so far.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opt.Context = ctx
	if !quiet {
		opt.Progress = func(s checker.Stats) {
			fmt.Fprintf(stderr, "progress: %d distinct, %d generated, queue %d, depth %d, %.0f generated/s, %.1fs\n",
				s.Distinct, s.Generated, s.Queue, s.Depth, s.Rate, s.Seconds)
		}
	}
	if !asJSON {
		fmt.Fprintf(stdout, "ftcheck check %s: %s\n", p.Name, r.Name())
	}
	res := r.BFS(opt)
	if res.Err != nil && ctx.Err() != nil {
		res.Err = nil // interrupted: report what was found
		fmt.Fprintln(stderr, "ftcheck: interrupted; reporting the search so far")
	}
	if res.Err != nil {
		return fmt.Errorf("check %s: %w", p.Name, res.Err)
	}
	mode := "bfs"
	if dfs {
		mode = "dfs"
	}
	used := propertiesRun(r, names, lassos)
	if shard.on() {
		if err := shard.writeCheckShard(fs, p, r, res, used, asJSON, stdout); err != nil {
			return fmt.Errorf("check %s: %w", p.Name, err)
		}
	}
	sum := checkSummary{Model: r.Name(), Mode: mode, States: res.States, Transitions: res.Transitions,
		MaxDepth: res.Depth, Complete: res.Complete, Seconds: res.Seconds, Stop: string(res.Stop),
		Workers: res.Workers, BytesPerState: res.BytesPerState(), CollisionProb: res.CollisionProb,
		Violations: []registry.ViolationRef{}, PropertiesUsed: used,
		POR: res.POR, Slept: res.Slept, Reexpanded: res.Reexpanded, PORNote: res.PORNote, Bounds: res.Bounds,
		ResumedSeconds: res.ResumedSeconds}
	if res.Seconds > 0 {
		sum.GeneratedPerS = float64(res.Transitions) / res.Seconds
	}
	for _, tr := range res.Violations {
		header := fmt.Sprintf("\nVIOLATION of %s (%s) after %d steps:\n", tr.Violation.Property, tr.Violation.Kind, len(tr.Steps))
		ref, err := reportViolation(o, p.Name, tr, header, asJSON, stdout, stderr)
		if err != nil {
			return err
		}
		sum.Violations = append(sum.Violations, ref)
	}
	if !asJSON {
		fmt.Fprintf(stdout, "\n%d distinct states, %d generated, depth %d, complete=%v (%s), %.2fs, %.0f generated/s, %s, %.1f bytes/state in the visited set\n",
			res.States, res.Transitions, res.Depth, res.Complete, res.Stop, res.Seconds, sum.GeneratedPerS, plural(res.Workers, "worker", "workers"), sum.BytesPerState)
		fmt.Fprintf(stdout, "properties: %s\n", strings.Join(used, ", "))
		reportScale(stdout, res)
		if res.POR && res.Mode == checker.DepthFirst {
			fmt.Fprintf(stdout, "por: true: persistent sets left %d enabled actions untaken, %d states expanded fully by the stack proviso\n",
				res.Slept, res.Reexpanded)
		} else if res.POR {
			fmt.Fprintf(stdout, "por: true: %d transitions skipped by sleep sets (%d generated without por on a complete run), %d states re-expanded\n",
				res.Slept, res.Transitions+res.Slept, res.Reexpanded)
		} else if por {
			fmt.Fprintf(stdout, "por: false: %s\n", res.PORNote)
		}
		fmt.Fprintf(stdout, "fingerprint collision probability (optimistic estimate): %.3g\n", res.CollisionProb)
		if len(res.Violations) == 0 {
			fmt.Fprintf(stdout, "all checked properties hold%s\n", map[bool]string{true: "", false: " (within the bounds reached: incomplete, nothing proved)"}[res.Complete])
		}
		for _, b := range res.Bounds {
			fmt.Fprintf(stdout, "eventually %v\n", b)
		}
	}
	verdict := verdictOf(len(res.Violations) > 0, res.Complete)
	if shard.on() {
		verdict = shardVerdict(res)
	}
	if mutants && len(res.Violations) == 0 {
		rows, mv, err := checkMutants(p, fs, opt, asJSON, stdout)
		if err != nil {
			return err
		}
		sum.Mutants = rows
		verdict = worse(verdict, mv)
	}
	if asJSON {
		if err := json.NewEncoder(stdout).Encode(sum); err != nil {
			return err
		}
	}
	return verdict
}

// verdictOf is the exit error of a run: errViolation if it found one, else
// errIncomplete if it stopped before it was done, else nil.
func verdictOf(violated, complete bool) error {
	switch {
	case violated:
		return errViolation
	case !complete:
		return errIncomplete
	}
	return nil
}

// worse returns the verdict with the higher precedence: a violation, then
// an incomplete run, then success.
func worse(a, b error) error {
	if errors.Is(a, errViolation) || errors.Is(b, errViolation) {
		return errViolation
	}
	if a != nil {
		return a
	}
	return b
}

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// checkGenericFlags refuses values of check's own flags that mean nothing.
func checkGenericFlags(fs *flag.FlagSet) error {
	get := func(name string) any {
		f := fs.Lookup(name)
		if f == nil {
			return nil
		}
		return f.Value.(flag.Getter).Get()
	}
	if w := get("workers").(int); w < 0 || w > maxWorkers {
		return fmt.Errorf("--workers %d: want 0 (one per CPU) to %d", w, maxWorkers)
	}
	if d := get("max-depth").(int); d < 0 {
		return fmt.Errorf("--max-depth %d: want a depth ≥ 1, or 0 for no bound", d)
	}
	if n := get("max-states").(int64); n < 0 {
		return fmt.Errorf("--max-states %d: want a number of states ≥ 1, or 0 for no bound", n)
	}
	if m := get("max-memory").(int64); m < -1 {
		return fmt.Errorf("--max-memory %d: want MiB ≥ 1, 0 for the machine's bound or -1 for none", m)
	}
	if q, ok := get("queue-memory").(int64); ok && q < 0 {
		return fmt.Errorf("--queue-memory %d: want MiB ≥ 0", q)
	}
	if e, ok := get("checkpoint-every").(time.Duration); ok && e <= 0 {
		return fmt.Errorf("--checkpoint-every %v: want a positive duration (e.g. 10m)", e)
	}
	if get("mutants").(bool) && isSet(fs, "mutant") {
		return errors.New("--mutants checks every mutant: not with --mutant")
	}
	return nil
}

// selectedProperties parses --property: comma-separated names of r's
// properties, none empty. The error lists r's properties.
func selectedProperties(r registry.Runner, list string) ([]string, error) {
	var known []string
	for _, pi := range r.Properties() {
		known = append(known, pi.Name)
	}
	var names []string
	for n := range strings.SplitSeq(list, ",") {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return nil, fmt.Errorf("--property %q: an empty property name (properties: %s)", list, strings.Join(known, ", "))
		case !slices.Contains(known, n):
			return nil, fmt.Errorf("--property %s: unknown property (properties: %s)", n, strings.Join(known, ", "))
		}
		names = append(names, n)
	}
	return names, nil
}

// propertiesRun lists the properties a check of r runs: names, or every
// property not expected to fail; lassos adds the livelock property.
func propertiesRun(r registry.Runner, names []string, lassos bool) []string {
	out := append([]string{}, names...)
	if len(names) == 0 {
		for _, pi := range r.Properties() {
			if !pi.ExpectFail {
				out = append(out, pi.Name)
			}
		}
	}
	if lassos {
		out = append(out, checker.LivelockProperty)
	}
	return out
}
