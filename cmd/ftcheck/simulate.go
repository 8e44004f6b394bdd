package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/registry"
)

func cmdSimulate(args []string, stdout, stderr io.Writer) error {
	var asJSON, quiet bool
	var out string
	var maxMemoryMB int64
	var shard *shardFlags
	common := func(fs *flag.FlagSet) {
		shard = bindShard(fs, "simulate")
		fs.Int64Var(&maxMemoryMB, "max-memory", 0, "stop gracefully (complete=false, stop=memory, exit 3) when the Go heap or the resident set reaches this many MiB, reporting the runs done; a run that needs more up front is refused (exit 2) (0: the machine's bound, as check's; -1: no bound)")
		fs.BoolVar(&asJSON, "json", false, "print one JSON summary object (keys of every model: model, mode, seed, complete, violations, seconds)")
		fs.BoolVar(&quiet, "quiet", false, "no progress lines")
		fs.StringVar(&out, "out", "out", "directory for counterexample traces (created if missing; checked before the runs)")
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if wantsHelp(args) {
			fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
			common(fs)
			printFlags(fs, stdout, fmt.Sprintf("ftcheck simulate MODEL [model flags] [simulate flags]\nmodels: %s (their flags: ftcheck simulate MODEL -h)\nCtrl-C, SIGTERM or the memory bound (--max-memory) stops the runs and reports those done (exit 3)", simulatedNames()))
			return errHelp
		}
		return usageFor("ftcheck simulate -h", "simulate: name a model (%s)", simulatedNames())
	}
	p, err := registry.Lookup(args[0])
	if err != nil {
		return usageFor("ftcheck simulate -h", "simulate: %v", err)
	}
	if p.Simulate == nil {
		return usageFor("ftcheck simulate -h", "simulate: model %s has no simulation (models with one: %s)", p.Name, simulatedNames())
	}
	help := "ftcheck simulate " + p.Name + " -h"
	fs := flag.NewFlagSet("simulate "+p.Name, flag.ContinueOnError)
	run := p.Simulate(fs)
	common(fs)
	if err := parseFlags(fs, args[1:], stdout, "simulate "+p.Name, "ftcheck simulate "+p.Name+" [flags]"); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageFor(help, "simulate %s: unexpected argument %q", p.Name, fs.Arg(0))
	}
	if maxMemoryMB < -1 || maxMemoryMB > 1<<40 {
		return usageFor(help, "simulate %s: --max-memory %d: want MiB ≥ 1, 0 for the machine's bound or -1 for none", p.Name, maxMemoryMB)
	}
	if err := shard.validate(fs); err != nil {
		return usageFor(help, "simulate %s: %v", p.Name, err)
	}
	if err := shard.validateSim(p); err != nil {
		return usageFor(help, "simulate %s: %v", p.Name, err)
	}
	o, err := prepareOut(out)
	if err != nil {
		return usageFor(help, "simulate %s: %v", p.Name, err)
	}
	defer o.done()
	bound := simMemoryBound(maxMemoryMB)
	if bound.Bytes > 0 && os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(bound.Bytes))
	}
	// Ctrl-C or SIGTERM stops the runs; the report covers those done. A
	// second one kills the process (a simulation that cannot stop early
	// runs to its end otherwise).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	progress := func(s string) { fmt.Fprintln(stderr, s) }
	if quiet {
		progress = func(string) {}
	}
	simCtx, cancelSim := context.WithCancel(ctx)
	defer cancelSim()
	var pass *checker.MemoryPass
	watchCtx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		checker.WatchMemory(watchCtx, bound.Bytes, memoryWatchEvery, func(mp checker.MemoryPass) {
			pass = &mp
			cancelSim()
		})
	}()
	started := time.Now()
	rep, err := run(shard.context(registry.WithMemoryBound(simCtx, bound)), progress)
	if err == nil && rep.Seconds == 0 {
		// A model that does not time its own runs is timed here.
		rep.Seconds = time.Since(started).Seconds()
	}
	stopWatch()
	<-watched
	memStop := pass != nil && err == nil && rep.Interrupted
	switch {
	case memStop:
		fmt.Fprintf(stderr, "ftcheck: %s reached %d MiB, the memory bound (%s); reporting the runs done\n", pass.What, pass.At>>20, bound.From)
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "ftcheck: interrupted; reporting the runs done")
	case pass != nil && err == nil:
		fmt.Fprintf(stderr, "ftcheck: warning: the %s passed the memory bound (%d MiB from %s) at %d MiB, but this simulation cannot stop early; it ran to its end\n",
			pass.What, bound.Bytes>>20, bound.From, pass.At>>20)
	}
	if err != nil {
		return usageFor(help, "simulate %s: %v", p.Name, err)
	}
	if shard.on() {
		return shard.writeSimShard(p, fs, rep, asJSON, stdout)
	}
	if err := saveSimViolation(o, p.Name, rep, asJSON, stdout, stderr); err != nil {
		return err
	}
	if asJSON {
		doc := map[string]any{}
		for k, v := range rep.Figures {
			doc[k] = v
		}
		for k, v := range map[string]any{"model": rep.Model, "mode": rep.Mode, "seed": rep.Seed, "complete": !rep.Interrupted,
			"seconds": rep.Seconds, "violations": rep.Violations, "stop": simStop(rep, memStop)} {
			doc[k] = v
		}
		if memStop {
			doc["memory_bound_mib"], doc["memory_from"] = bound.Bytes>>20, bound.From
		}
		if err := json.NewEncoder(stdout).Encode(doc); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "seed %d, %.2fs\n%s", rep.Seed, rep.Seconds, rep.Text)
		if !strings.HasSuffix(rep.Text, "\n") {
			fmt.Fprintln(stdout)
		}
		switch {
		case memStop:
			fmt.Fprintf(stdout, "stopped at the memory bound (%d MiB from %s) after %s: the figures above cover them (incomplete)\n", bound.Bytes>>20, bound.From, runsDone(rep))
		case rep.Interrupted:
			fmt.Fprintln(stdout, "interrupted: the figures above cover the runs done (incomplete)")
		}
	}
	return verdictOf(len(rep.Violations) > 0, !rep.Interrupted)
}

// simulatedNames lists the models that have a simulation, comma-separated.
func simulatedNames() string {
	var names []string
	for _, p := range registry.All() {
		if p.Simulate != nil {
			names = append(names, p.Name)
		}
	}
	return strings.Join(names, ", ")
}

// memoryWatchEvery is the time between two samples of simulate's memory
// watch.
const memoryWatchEvery = 100 * time.Millisecond

// simMemoryBound is simulate's memory bound for --max-memory mb: mb MiB,
// none for -1, else the machine's (checker.MachineMemoryBound, as check).
func simMemoryBound(mb int64) registry.MemoryBound {
	switch {
	case mb > 0:
		return registry.MemoryBound{Bytes: mb << 20, From: "--max-memory"}
	case mb < 0:
		return registry.MemoryBound{}
	}
	b, from := checker.MachineMemoryBound()
	if b <= 0 {
		return registry.MemoryBound{}
	}
	return registry.MemoryBound{Bytes: b, From: from}
}

// simStop is the JSON stop key of a simulation: memory (its bound),
// canceled (a signal), violation or done.
func simStop(rep *registry.SimReport, memStop bool) string {
	switch {
	case memStop:
		return "memory"
	case rep.Interrupted:
		return "canceled"
	case len(rep.Violations) > 0:
		return "violation"
	}
	return "done"
}

// runsDone is "K walks" (or runs) from a report's figures.
func runsDone(rep *registry.SimReport) string {
	for _, k := range []string{"walks", "runs", "trials"} {
		if v, ok := rep.Figures[k]; ok {
			return fmt.Sprintf("%v %s", v, k)
		}
	}
	return "the runs done"
}

// saveSimViolation saves and reports a simulation's first violation, if
// any (rep.Trace), and sets its trace file in rep.Violations[0].
func saveSimViolation(o *outDir, model string, rep *registry.SimReport, asJSON bool, stdout, stderr io.Writer) error {
	tr := rep.Trace
	if tr == nil {
		return nil
	}
	header := fmt.Sprintf("VIOLATION of %s after %d steps", tr.Violation.Property, len(tr.Steps))
	if tr.Seed != nil {
		header += fmt.Sprintf(" (seed %d)", *tr.Seed)
	}
	ref, err := reportViolation(o, model, tr, header+":\n", asJSON, stdout, stderr)
	if err != nil {
		return err
	}
	ref.Property, ref.Steps = rep.Violations[0].Property, rep.Violations[0].Steps
	rep.Violations[0] = ref
	return nil
}
