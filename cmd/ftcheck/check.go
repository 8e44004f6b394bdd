package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
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

func cmdCheck(args []string, stdout, stderr io.Writer) error {
	var workers, maxDepth int
	var maxStates int64
	var property, outDir string
	var asJSON, quiet, mutants, por, dfs, symmetry, lassos, shrink bool
	var maxMemoryMB int64
	var scale *scaleFlags
	var forgetUnsupported bool
	p, _, build, err := modelFlags("check", args, stdout, func(fs *flag.FlagSet) {
		scale = bindScale(fs)
		if fs.Lookup("forget-crashed") == nil {
			// The models that forget crashed processes define the flag
			// themselves; the others refuse it below.
			fs.BoolVar(&forgetUnsupported, "forget-crashed", false, "forget a crashed process's state (not supported by this model: era, correction, gossipfd, replica and ringfd have it)")
		}
		fs.BoolVar(&mutants, "mutants", false, "after the check, check every mutant at the same bounds and print which property catches it")
		fs.IntVar(&workers, "workers", 0, "parallel workers (0: one per CPU); results do not depend on it")
		fs.Int64Var(&maxStates, "max-states", 0, "stop after this many distinct states (0: no bound)")
		fs.IntVar(&maxDepth, "max-depth", 0, "do not expand states deeper than this (0: no bound)")
		fs.StringVar(&property, "property", "", "check only these properties (comma-separated), expected-to-fail ones included")
		fs.StringVar(&outDir, "out", "out", "directory for counterexample traces")
		fs.BoolVar(&asJSON, "json", false, "print one JSON summary object")
		fs.BoolVar(&quiet, "quiet", false, "no progress lines")
		fs.BoolVar(&dfs, "dfs", false, "depth-first search: far less memory for the queue; counterexamples are not the shortest (see --shrink)")
		fs.BoolVar(&symmetry, "symmetry", false, "symmetry reduction by the model's canonical representative (models that have one, e.g. twophase)")
		fs.BoolVar(&lassos, "lassos", false, "with --dfs: report cycles of non-quiescent states (livelocks) as lassos")
		fs.BoolVar(&shrink, "shrink", false, "shrink counterexamples by delta debugging (useful with --dfs)")
		fs.Int64Var(&maxMemoryMB, "max-memory", 0, "stop gracefully (complete=false) when the Go heap reaches this many MiB (0: the machine's memory (cgroup limit or physical) minus a margin; -1: no bound)")
		fs.BoolVar(&por, "por", false, "partial-order reduction: sleep sets in BFS (fewer transitions, the same states), persistent sets with --dfs (fewer states, for models that have them); the same verdicts; counterexamples may be longer than the shortest")
	})
	if err != nil {
		return err
	}
	if forgetUnsupported {
		return usageFor("ftcheck check "+p.Name+" -h", "check %s: --forget-crashed: %s does not forget crashed processes (only the message-passing models whose nodes have a Forget do: era, correction, gossipfd, replica, ringfd)", p.Name, p.Name)
	}
	r, err := build()
	if err != nil {
		return usageFor("ftcheck check "+p.Name+" -h", "check %s: %v", p.Name, err)
	}
	opt := checker.Options{Workers: workers, MaxDepth: maxDepth, MaxStates: maxStates, ProgressEvery: 2 * time.Second, POR: por,
		Symmetry: symmetry, Lassos: lassos, Shrink: shrink, MaxMemory: maxMemoryMB << 20}
	if dfs {
		opt.Mode = checker.DepthFirst
	}
	scale.apply(&opt)
	// Ctrl-C or SIGTERM stops the search gracefully: it reports
	// complete=false with everything found so far.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opt.Context = ctx
	if property != "" {
		opt.Properties = strings.Split(property, ",")
	}
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
		if strings.Contains(res.Err.Error(), "unknown property") {
			return usageFor("ftcheck list", "check %s: %v", p.Name, res.Err)
		}
		return fmt.Errorf("check %s: %w", p.Name, res.Err)
	}
	mode := "bfs"
	if dfs {
		mode = "dfs"
	}
	sum := checkSummary{Model: r.Name(), Mode: mode, States: res.States, Transitions: res.Transitions,
		MaxDepth: res.Depth, Complete: res.Complete, Seconds: res.Seconds, Stop: string(res.Stop),
		Workers: res.Workers, BytesPerState: res.BytesPerState(), CollisionProb: res.CollisionProb,
		Violations: []registry.ViolationRef{}, PropertiesUsed: opt.Properties,
		POR: res.POR, Slept: res.Slept, Reexpanded: res.Reexpanded, PORNote: res.PORNote, Bounds: res.Bounds}
	if res.Seconds > 0 {
		sum.GeneratedPerS = float64(res.Transitions) / res.Seconds
	}
	for _, tr := range res.Violations {
		path, err := saveTrace(outDir, p.Name, tr)
		if err != nil {
			return err
		}
		sum.Violations = append(sum.Violations, registry.ViolationRef{Property: tr.Violation.Property, Steps: len(tr.Steps), TraceFile: path})
		if !asJSON {
			fmt.Fprintf(stdout, "\nVIOLATION of %s (%s) after %d steps:\n", tr.Violation.Property, tr.Violation.Kind, len(tr.Steps))
			if err := tr.Format(stdout); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "trace saved to %s (replay: go run ./cmd/ftcheck replay %s)\n", path, path)
		}
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "\n%d distinct states, %d generated, depth %d, complete=%v (%s), %.2fs, %.0f generated/s, %d workers, %.1f bytes/state in the visited set\n",
			res.States, res.Transitions, res.Depth, res.Complete, res.Stop, res.Seconds, sum.GeneratedPerS, res.Workers, sum.BytesPerState)
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
			fmt.Fprintf(stdout, "all checked properties hold%s\n", map[bool]string{true: "", false: " (within the bounds reached)"}[res.Complete])
		}
		for _, b := range res.Bounds {
			fmt.Fprintf(stdout, "eventually %v\n", b)
		}
	}
	if len(res.Violations) > 0 {
		return errViolation
	}
	if mutants {
		return checkMutants(p, args[1:], opt, asJSON, stdout)
	}
	return nil
}

// saveTrace writes tr as DIR/MODEL-PROPERTY.json.
func saveTrace(dir, model string, tr *checker.Trace) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := model + "-" + tr.Violation.Property
	if m := tr.Params["mutant"]; m != "" {
		name += "-" + m
	}
	path := filepath.Join(dir, name+".json")
	return path, tr.WriteFile(path)
}
