package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
)

// runHelp is the -h command that lists run's flags.
const runHelp = "ftcheck run -h"

// runScenario is what `ftcheck run MODEL` runs: the model's flags, with
// these defaults, give every process its machine and its calls (the
// model's schedule). seedFlag is the model flag that --seed sets ("": the
// scenario draws nothing), crashFlag the model's crash budget, which
// defaults to the number of --kill. output is the effect each process
// reports (era: the agreement's return; correction: the delivery;
// replica: the program's outputs), and finish when a process has finished
// the scenario.
type runScenario struct {
	doc       string
	defaults  [][2]string
	seedFlag  string
	crashFlag string
	output    core.EffectKind
	finish    runFinish
	// label prefixes an output's instance number in the report ("a=" for
	// era's agreements).
	label string
	// known, when set, reads from the machine the ranks it holds failed
	// (ringfd's Reported: a daemon that learns of a failure by a FAULT
	// message does not emit EffSuspect); each new one is reported as an
	// EffSuspect output is.
	known func(core.Machine) core.RankSet
	// keep, when set, selects the output effects reported (msglog: the
	// program's outputs among its history's deliveries).
	keep func(core.Effect) bool
	// recoverFlag is the model's restart budget, which defaults to the
	// number of --restart (run_restart.go); "": the model has none.
	recoverFlag string
	// compare, when set, checks the live processes' outputs against a
	// reference (msglog: the failure-free runs): a line for the report,
	// and the problems found.
	compare func(h *runHeader, rep *runReport) (string, []string)
	// perRank compares each rank's outputs with its own only (msglog:
	// a restarted process's with what it output before its kill).
	perRank bool
	// ordinal numbers a process's outputs by their position (its k-th
	// output is instance k), so that comparing an instance among the live
	// processes compares their output orders (abcast's total order).
	ordinal bool
	// finished is the parent's rule, under finishParent, for when live
	// rank r has finished, from every process's outputs so far (abcast).
	finished func(h *runHeader, res *groupResult, r int) bool
	// flags, when set, adds the scenario's own flags after the model's and
	// returns the check of their parsed values (an error is bad usage).
	flags func(fs *flag.FlagSet) func() error
	// net, when set, builds the runner the processes run and validate
	// replays from the model's parameters: the registered model is its own
	// transition system, not a checker/env one (hyperquicksort).
	net func(params map[string]string) (registry.Runner, error)
	// gated: the parent makes every call (barrierGate,
	// run_hyperquicksort.go), not the processes themselves.
	gated bool
	// replay, when set, replays validate's merged steps (a run of the
	// net model) on the model the registered protocol checks: the line
	// for validate's report, or what fails there.
	replay func(params map[string]string, steps []checker.Step) (string, error)
}

// runnerFor is the runner of scenario sc for the model r was built as.
func runnerFor(sc runScenario, r registry.Runner) (registry.Runner, error) {
	if sc.net == nil {
		return r, nil
	}
	return sc.net(r.Params())
}

// runFinish says when a process has finished its scenario.
type runFinish int

const (
	// finishReturns: every call of the model's schedule returned.
	finishReturns runFinish = iota
	// finishDelivered: the process delivered (EffDeliver) once.
	finishDelivered
	// finishProgram: the machine reports Finished() (the replica ran its
	// whole program and emptied its outbox).
	finishProgram
	// finishDetected: every kill was made and the process reported
	// (EffSuspect) every killed rank; the parent decides it.
	finishDetected
	// finishParent: the parent decides it by the scenario's finished rule
	// (abcast: every message it can deliver delivered).
	finishParent
)

// runScenarios are the models `ftcheck run` knows a scenario for.
var runScenarios = map[string]runScenario{
	"era": {
		doc: "the MPIX_Comm_agree benchmark loop: every process calls MPIX_Comm_failure_ack(); MPIX_Comm_agree(flag) " +
			"--agreements times in a row (--op ulfm, --blocking), each call --interval after the previous one returned, " +
			"its flags drawn from --seed",
		defaults:  [][2]string{{"op", "ulfm"}, {"blocking", "true"}, {"agreements", "20"}},
		seedFlag:  "inputs-seed",
		crashFlag: "crashes",
		output:    core.EffReturn,
		finish:    finishReturns,
		label:     "a=",
	},
	"correction": {
		doc: "one broadcast: the root (rank 0, never killed) broadcasts 42 down the tree, correction starts at each process " +
			"once it is colored (--start overlapped: the synchronized start is the model's global clock, which a real run has not); " +
			"a process has finished once it delivered; latency is from the start of the scenario",
		defaults:  [][2]string{{"start", "overlapped"}, {"P", "8"}},
		seedFlag:  "seed",
		crashFlag: "faults",
		output:    core.EffDeliver,
		finish:    finishDelivered,
		label:     "delivery ",
	},
	"replica": {
		doc: "a shipped program (--program, default ping-pong) run by every replica of every logical process; the perfect " +
			"detector tells the survivors of a kill; a replica has finished once it ran its whole program and sent its outbox; " +
			"the outputs are the program's Output values, compared among the replicas of one logical process",
		crashFlag: "crashes",
		output:    core.EffDecide,
		finish:    finishProgram,
		label:     "out=",
	},
	"ringfd": {
		doc: "a crash and its detection: every daemon starts its heartbeats at tick 0 (one tick is --time-unit), " +
			"the killed daemons stop, and a daemon has finished once it reported every killed daemon; " +
			"the run is in ticks (netnode RunTicks), so that validate replays it in the bounded-delay model; " +
			"latency is from the kill to the report",
		defaults:  [][2]string{{"procs", "0"}, {"time-unit", "50ms"}, {"delta", "3"}, {"timeout", "12"}},
		crashFlag: "crashes",
		output:    core.EffSuspect,
		finish:    finishDetected,
		label:     "p",
		known:     reportedSet,
	},
	"gossipfd": {
		doc: "a crash and its detection: every host gossips its heartbeat list every T_gossip ticks from tick 0 " +
			"(--timing bounded: the checker's bounded-delay model; one tick is --time-unit) for --max-rounds rounds; a host has finished " +
			"once it declared every killed host (EffSuspect); the run is in ticks (netnode RunTicks); latency is from the kill to the declaration",
		defaults:  [][2]string{{"timing", "bounded"}, {"time-unit", "50ms"}, {"max-rounds", "30"}},
		seedFlag:  "seed",
		crashFlag: "crashes",
		output:    core.EffSuspect,
		finish:    finishDetected,
		label:     "p",
	},
	"abcast": abcastScenario,
	"msglog": msglogScenario, // run_msglog.go
}

// reportedSet is ringfd's Reported set of a daemon.
func reportedSet(m core.Machine) core.RankSet {
	if d, ok := m.(interface{ Reported() core.RankSet }); ok {
		return d.Reported()
	}
	return core.RankSet{}
}

func runModels() string {
	var names []string
	for k := range runScenarios {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// kill is one --kill RANK@DURATION.
type kill struct {
	Rank core.Rank     `json:"rank"`
	At   time.Duration `json:"at_ns"`
	// Done reports that the rank was killed; Killed is when, counted from
	// the start of the scenario, and Dead when its exit was seen.
	Done   bool          `json:"done"`
	Killed time.Duration `json:"killed_ns,omitempty"`
	Dead   time.Duration `json:"dead_ns,omitempty"`
}

type killFlag []kill

func (k *killFlag) String() string {
	var parts []string
	for _, x := range *k {
		parts = append(parts, fmt.Sprintf("%d@%v", x.Rank, x.At))
	}
	return strings.Join(parts, " ")
}

func (k *killFlag) Set(s string) error {
	r, d, ok := strings.Cut(s, "@")
	if !ok {
		return fmt.Errorf("want RANK@DURATION, e.g. 3@50ms")
	}
	rank, err := strconv.Atoi(r)
	if err != nil || rank < 0 {
		return fmt.Errorf("%q is not a rank", r)
	}
	at, err := time.ParseDuration(d)
	if err != nil || at < 0 {
		return fmt.Errorf("%q is not a duration ≥ 0", d)
	}
	*k = append(*k, kill{Rank: core.Rank(rank), At: at})
	return nil
}

// runHeader is TRACE-DIR/run.json: what was run, and who was killed when.
type runHeader struct {
	Model    string            `json:"model"`
	Params   map[string]string `json:"params"`
	N        int               `json:"n"`
	Seed     uint64            `json:"seed"`
	Interval time.Duration     `json:"interval_ns"`
	TimeUnit time.Duration     `json:"time_unit_ns"`
	// Detector is how the survivors learn of a kill: "perfect" (the parent
	// tells them once the death is seen) or "none" (the model has no
	// detector, e.g. correction's broadcast).
	Detector string `json:"detector"`
	Start    int64  `json:"start"` // Unix nanoseconds when the scenario started
	Kills    []kill `json:"kills"`
	// Restarts are the --restart (run_restart.go).
	Restarts []restart `json:"restarts,omitempty"`
	// StopTicks[r], in a run in ticks, is the tick rank r stopped in (-1:
	// killed, or never said).
	StopTicks []int64 `json:"stop_ticks,omitempty"`
	// fd is the heartbeat detector's run beside the protocol's (Detector
	// names its model), written to detectorDir.
	fd *runHeader
}

// detectorDir is the subdirectory of a trace directory that holds the
// heartbeat detector's own trace, which validate checks against its model.
const detectorDir = "detector"

// heartbeatDetector builds the model of heartbeat detector name (ringfd or
// gossipfd) over n hosts with a crash budget of crashes, from its run
// scenario's defaults: its run header, without kills and start.
func heartbeatDetector(name string, n, crashes int) (*runHeader, error) {
	p, err := registry.Lookup(name)
	if err != nil {
		return nil, err
	}
	sc := runScenarios[name]
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	build := p.Define(fs)
	unit := time.Millisecond
	for _, d := range sc.defaults {
		if d[0] == "time-unit" {
			if unit, err = time.ParseDuration(d[1]); err != nil {
				return nil, err
			}
			continue
		}
		fs.Set(d[0], d[1])
	}
	fs.Set("n", strconv.Itoa(n))
	fs.Set(sc.crashFlag, strconv.Itoa(crashes))
	r, err := build()
	if err != nil {
		return nil, fmt.Errorf("--detector %s over %d processes: %v", name, n, err)
	}
	return &runHeader{Model: name, Params: r.Params(), N: n, TimeUnit: unit, Detector: "none"}, nil
}

// startAhead is how far ahead of "start" the scenario starts: every
// process has read the line by then, and waits for the moment.
const startAhead = 50 * time.Millisecond

// runHeaderFile is the run's header in a trace directory; rankLog(r) is
// rank r's log.
const runHeaderFile = "run.json"

func rankLog(r int) string { return fmt.Sprintf("p%d.ndjson", r) }

func cmdRun(args []string, stdout, stderr io.Writer) error {
	var kills killFlag
	var restarts restartFlag
	var seed uint64
	var deadline, interval, timeUnit time.Duration
	var traceDir string
	var asJSON bool
	var detector string
	common := func(fs *flag.FlagSet) {
		detector = "perfect"
		if fs.Lookup("detector") == nil { // else the model's own --detector (abcast's perfect|none) chooses
			fs.StringVar(&detector, "detector", "perfect", "with a protocol that uses a failure detector (era, replica): perfect (ftcheck tells the survivors of each death) "+
				"or a heartbeat detector, ringfd or gossipfd, run in every process beside the protocol (its defaults as in ftcheck run ringfd|gossipfd), "+
				"its suspicions the protocol's; its own trace goes to TRACE-DIR/detector")
		}
		fs.Var(&kills, "kill", "RANK@DURATION: SIGKILL the rank that long after every process is connected and the scenario started; at 0s, before it starts (repeatable)")
		fs.Var(&restarts, "restart", "RANK@DURATION: restart the killed rank's process that long after the scenario started, from its stable storage on disk (models with crash-recovery: msglog; repeatable)")
		if fs.Lookup("seed") == nil { // else the model's own --seed is the scenario's
			fs.Uint64Var(&seed, "seed", 1, "seed of the processes' inputs")
		}
		fs.DurationVar(&deadline, "deadline", 30*time.Second, "every live process must have finished the scenario this long after it started (else exit 1)")
		fs.DurationVar(&interval, "interval", 10*time.Millisecond, "pause between a return and the next call (the benchmark's loop body)")
		fs.DurationVar(&timeUnit, "time-unit", time.Millisecond, "real duration of one protocol time unit (timers)")
		fs.StringVar(&traceDir, "trace", "", "write the run's logs to this directory (run.json, p<rank>.ndjson) for ftcheck validate; default: a temporary directory, removed")
		fs.BoolVar(&asJSON, "json", false, "print one JSON summary object")
	}
	synopsis := "ftcheck run MODEL [model flags] [--mutant NAME] [--kill RANK@DURATION …] [--seed S] [--deadline D] [--detector D] [--trace DIR] [--json]\n" +
		"starts one OS process per rank on 127.0.0.1 and runs the model's scenario; models: " + runModels() + "\n" +
		"exit 0: every live process finished and they agree; 1: they disagree, a live host was reported failed, or a live process\n" +
		"did not finish by --deadline;\n" +
		"2: bad usage; 3: interrupted (SIGINT, SIGTERM); the children are killed in every case"
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if wantsHelp(args) {
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			common(fs)
			printFlags(fs, stdout, synopsis)
			return errHelp
		}
		return usageFor(runHelp, "run: name a model (%s)", runModels())
	}
	p, err := registry.Lookup(args[0])
	if err != nil {
		return usageFor(runHelp, "run: %v", err)
	}
	sc, ok := runScenarios[p.Name]
	if !ok {
		return usageFor(runHelp, "run: model %s has no scenario yet (models with one: %s)", p.Name, runModels())
	}
	help := "ftcheck run " + p.Name + " -h"
	fs := flag.NewFlagSet("run "+p.Name, flag.ContinueOnError)
	build := p.Define(fs)
	common(fs)
	for _, d := range sc.defaults {
		fs.Lookup(d[0]).DefValue = d[1]
		fs.Set(d[0], d[1])
	}
	check := func() error { return nil }
	if sc.flags != nil {
		check = sc.flags(fs)
	}
	if err := parseFlags(fs, args[1:], stdout, "run "+p.Name, strings.Replace(synopsis, "MODEL", p.Name, 1)+"\nscenario: "+sc.doc); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageFor(help, "run %s: unexpected argument %q", p.Name, fs.Arg(0))
	}
	if err := check(); err != nil {
		return usageFor(help, "run %s: %v", p.Name, err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if sc.seedFlag == "seed" {
		if seed, err = strconv.ParseUint(fs.Lookup("seed").Value.String(), 10, 64); err != nil {
			return usageFor(help, "run %s: --seed: %v", p.Name, err)
		}
	} else if sc.seedFlag != "" {
		if set[sc.seedFlag] && fs.Lookup(sc.seedFlag).Value.String() != fs.Lookup(sc.seedFlag).DefValue {
			return usageFor(help, "run %s: --%s is --seed here", p.Name, sc.seedFlag)
		}
		fs.Set(sc.seedFlag, strconv.FormatUint(seed%(1<<63), 10))
	}
	if !set[sc.crashFlag] {
		fs.Set(sc.crashFlag, strconv.Itoa(len(kills)))
	}
	if sc.recoverFlag != "" && !set[sc.recoverFlag] {
		fs.Set(sc.recoverFlag, strconv.Itoa(len(restarts)))
	}
	r, err := build()
	if err == nil {
		r, err = runnerFor(sc, r)
	}
	if err != nil {
		return usageFor(help, "run %s: %v", p.Name, err)
	}
	em, ok := registry.EnvModel(r)
	if !ok || em.Config().Codec.Message == nil || len(em.Init()) != 1 {
		return usageFor(help, "run %s: the model as configured has no runnable scenario", p.Name)
	}
	if len(em.Config().Wakeups) > 0 {
		return usageFor(help, "run %s: the model's synchronized clock (its clock steps) has no counterpart in a real run: use an unsynchronized variant (e.g. --start overlapped)", p.Name)
	}
	n := em.N()
	crashes, _ := strconv.Atoi(fs.Lookup(sc.crashFlag).Value.String())
	seen := map[core.Rank]bool{}
	for _, k := range kills {
		switch {
		case !k.Rank.Valid(n):
			return usageFor(help, "run %s: --kill %d@%v: rank out of range 0 … %d", p.Name, k.Rank, k.At, n-1)
		case seen[k.Rank]:
			return usageFor(help, "run %s: --kill: rank %d killed twice", p.Name, k.Rank)
		case slices.Contains(em.Config().Survivors, k.Rank):
			return usageFor(help, "run %s: --kill %d@%v: the model assumes rank %d never fails", p.Name, k.Rank, k.At, k.Rank)
		}
		seen[k.Rank] = true
	}
	if sc.finish == finishDetected && len(kills) == 0 {
		return usageFor(help, "run %s: the scenario is a crash and its detection: give at least one --kill", p.Name)
	}
	if len(restarts) > 0 && em.Config().Faults != env.CrashRecovery {
		return usageFor(help, "run %s: --restart: the model as configured has no crash-recovery", p.Name)
	}
	if len(restarts) > 0 && em.Config().Timing == env.BoundedDelay {
		return usageFor(help, "run %s: --restart: a run in ticks does not restart processes (the model is timed)", p.Name)
	}
	if why := checkRestarts(restarts, kills, n); why != "" {
		return usageFor(help, "run %s: %s", p.Name, why)
	}
	if len(kills) > crashes {
		return usageFor(help, "run %s: %d --kill but --%s %d: the model would not allow the crashes", p.Name, len(kills), sc.crashFlag, crashes)
	}
	if deadline <= 0 || interval < 0 || timeUnit <= 0 {
		return usageFor(help, "run %s: --deadline and --time-unit must be positive, --interval ≥ 0", p.Name)
	}
	dir := traceDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "ftcheck-run-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usageFor(help, "run %s: --trace: %v", p.Name, err)
		}
		old, _ := filepath.Glob(filepath.Join(dir, "p*.ndjson"))
		for _, f := range append(old, filepath.Join(dir, runHeaderFile)) {
			os.Remove(f)
		}
	}
	slices.SortFunc(kills, func(a, b kill) int { return int(a.At - b.At) })
	h := &runHeader{Model: p.Name, Params: r.Params(), N: n, Seed: seed, Interval: interval, TimeUnit: timeUnit, Kills: kills, Restarts: restarts, Detector: "none"}
	switch {
	case em.Config().Detector != env.DetectorPerfect && detector != "perfect":
		return usageFor(help, "run %s: --detector %s: the model has no failure detector to replace", p.Name, detector)
	case em.Config().Detector != env.DetectorPerfect:
	case detector == "perfect":
		h.Detector = "perfect"
	case detector == "ringfd" || detector == "gossipfd":
		if h.fd, err = heartbeatDetector(detector, n, len(kills)); err != nil {
			return usageFor(help, "run %s: %v", p.Name, err)
		}
		h.Detector = detector
		if err := os.MkdirAll(filepath.Join(dir, detectorDir), 0o755); err != nil {
			return err
		}
		old, _ := filepath.Glob(filepath.Join(dir, detectorDir, "p*.ndjson"))
		for _, f := range append(old, filepath.Join(dir, detectorDir, runHeaderFile)) {
			os.Remove(f)
		}
	default:
		return usageFor(help, "run %s: --detector %q: want perfect, ringfd or gossipfd", p.Name, detector)
	}
	if len(restarts) > 0 && h.fd != nil {
		return usageFor(help, "run %s: --restart with --detector %s: a restarted process's heartbeat detector is not run", p.Name, detector)
	}
	res, err := runGroup(h, dir, deadline, stderr)
	if err != nil {
		return err
	}
	if werr := writeJSONFile(filepath.Join(dir, runHeaderFile), h); werr != nil {
		return werr
	}
	if h.fd != nil {
		h.fd.Start, h.fd.Kills = h.Start, h.Kills
		if werr := writeJSONFile(filepath.Join(dir, detectorDir, runHeaderFile), h.fd); werr != nil {
			return werr
		}
	}
	rep := res.report(h, em, traceDir)
	if asJSON {
		if err := json.NewEncoder(stdout).Encode(rep); err != nil {
			return err
		}
	} else {
		printRun(stdout, rep, r.Name())
	}
	switch {
	case res.interrupted:
		fmt.Fprintln(stderr, "ftcheck: interrupted")
		return errIncomplete
	case !rep.OK:
		return errViolation
	}
	return nil
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// child is one rank's process.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited bool
}

// childEvent is a line a child printed, or its exit (line "").
type childEvent struct {
	rank int
	line string
	exit error
}

// returned is one return a process reported.
type returned struct {
	Instance uint64        `json:"instance"`
	Latency  time.Duration `json:"latency_ns"`
	At       time.Duration `json:"at_ns"` // since the scenario started
	Value    string        `json:"value"`
	enc      string
}

// groupResult is what the processes reported.
type groupResult struct {
	returns     [][]returned
	before      [][]returned // a restarted rank's outputs before its kill
	finished    []bool
	killed      []bool
	lost        []string // a process that failed on its own
	notFinished bool     // the deadline passed
	interrupted bool
	seconds     float64
}

// runGroup starts the processes, runs the scenario and ends them.
func runGroup(h *runHeader, dir string, deadline time.Duration, stderr io.Writer) (*groupResult, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	params, err := json.Marshal(h.Params)
	if err != nil {
		return nil, err
	}
	n := h.N
	res := &groupResult{returns: make([][]returned, n), before: make([][]returned, n), finished: make([]bool, n), killed: make([]bool, n)}
	events := make(chan childEvent, 4*n)
	kids := make([]*child, n)
	defer func() { // no child outlives the run
		for _, c := range kids {
			if c != nil && !c.exited {
				c.cmd.Process.Kill()
			}
		}
		timeout := time.After(10 * time.Second)
		for _, c := range kids {
			for c != nil && !c.exited {
				select {
				case ev := <-events:
					if ev.line == "" {
						kids[ev.rank].exited = true
					}
				case <-timeout:
					return
				}
			}
		}
	}()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var rs *restarting
	spawn := func(r int, inc uint64) error {
		args := []string{"run-node", "--model", h.Model, "--params", string(params), "--rank", strconv.Itoa(r),
			"--log", filepath.Join(dir, incarnationLog(r, inc)), "--interval", h.Interval.String(), "--time-unit", h.TimeUnit.String()}
		if slices.ContainsFunc(h.Restarts, func(x restart) bool { return int(x.Rank) == r }) {
			args = append(args, "--state-dir", stateDir(dir, r))
		}
		if inc > 0 {
			args = append(args, "--restart")
			res.before[r], res.returns[r] = res.returns[r], nil
			res.killed[r], res.finished[r] = false, false
		}
		if h.fd != nil {
			fdParams, err := json.Marshal(h.fd.Params)
			if err != nil {
				return err
			}
			args = append(args, "--detector", h.fd.Model, "--detector-params", string(fdParams),
				"--detector-log", filepath.Join(dir, detectorDir, rankLog(r)), "--detector-time-unit", h.fd.TimeUnit.String())
		}
		cmd := exec.Command(exe, args...)
		cmd.Stderr = stderr
		setChildAttrs(cmd)
		in, err := cmd.StdinPipe()
		if err != nil {
			return err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("run: start rank %d: %w", r, err)
		}
		kids[r] = &child{cmd: cmd, stdin: in}
		go func() {
			s := bufio.NewScanner(out)
			for s.Scan() {
				if line := s.Text(); line != "" {
					events <- childEvent{rank: r, line: line}
				}
			}
			events <- childEvent{rank: r, exit: cmd.Wait()}
		}()
		return nil
	}
	for r := range n {
		if err := spawn(r, 0); err != nil {
			return nil, err
		}
	}
	tell := func(r int, line string) {
		if !kids[r].exited && !res.killed[r] && (rs == nil || !rs.starting(r)) {
			io.WriteString(kids[r].stdin, line+"\n")
		}
	}
	// Setup: every address, then every connection.
	addrs, fdAddrs := make([]string, n), make([]string, n)
	// Starting and connecting the processes is bounded too: each of the
	// two phases by --deadline, within [10 s, 1 min].
	setup := min(max(deadline, 10*time.Second), time.Minute)
	if err := await(events, kids, sigs, setup, "listening", func(ev childEvent) bool {
		a, ok := strings.CutPrefix(ev.line, "addr ")
		if ok {
			addrs[ev.rank], fdAddrs[ev.rank], _ = strings.Cut(a, " ")
		}
		return ok
	}); err != nil {
		return res, err
	}
	for r := range n {
		tell(r, "peers "+strings.Join(addrs, " "))
		if h.fd != nil {
			tell(r, "fdpeers "+strings.Join(fdAddrs, " "))
		}
	}
	if err := await(events, kids, sigs, setup, "connected", func(ev childEvent) bool { return ev.line == "connected" }); err != nil {
		return res, err
	}
	// The scenario starts a little ahead, so that every process has read
	// "start" when it begins: tick 0 of a run in ticks.
	start := time.Now().Add(startAhead)
	h.Start = start.UnixNano()
	for r := range n {
		tell(r, fmt.Sprintf("start %d", h.Start))
	}
	rs = newRestarting(h, start, addrs)
	rs.spawn, rs.tell = spawn, func(r int, line string) {
		if !kids[r].exited {
			io.WriteString(kids[r].stdin, line+"\n")
		}
	}
	rs.live = func(r int) bool { return !kids[r].exited && !res.killed[r] }
	var gate *barrierGate // a gated scenario's barriers (run_hyperquicksort.go)
	if runScenarios[h.Model].gated {
		if gate, err = newBarrierGate(h); err != nil {
			return res, err
		}
	}
	killNow := make(chan int, len(h.Kills))
	for i, k := range h.Kills {
		// A kill at 0 is made at once, before the scenario starts: the
		// rank never takes a step (a process dead from the start).
		after := time.Until(start.Add(k.At))
		if k.At == 0 {
			after = 0
		}
		t := time.AfterFunc(after, func() { killNow <- i })
		defer t.Stop()
	}
	timeout := time.NewTimer(deadline)
	defer timeout.Stop()
	pending := 0 // kills sent whose exit is not yet seen
	detected := func(r int) bool {
		for _, k := range h.Kills {
			if !k.Done || !slices.ContainsFunc(res.returns[r], func(rt returned) bool { return rt.Instance == uint64(k.Rank) }) {
				return false
			}
		}
		return true
	}
	done := func() bool {
		if pending > 0 || rs.pending() {
			return false
		}
		if runScenarios[h.Model].finish == finishDetected {
			for r := range n {
				res.finished[r] = !res.killed[r] && detected(r)
			}
		}
		if sc := runScenarios[h.Model]; sc.finish == finishParent {
			f := sc.finished
			for r := range n {
				res.finished[r] = !res.killed[r] && f(h, res, r)
			}
		}
		for r := range n {
			if !res.killed[r] && !res.finished[r] {
				return false
			}
		}
		return true
	}
	killRank := func(i int) {
		k := &h.Kills[i]
		if kids[k.Rank].exited {
			return
		}
		kids[k.Rank].cmd.Process.Kill()
		k.Done, k.Killed = true, time.Since(start)
		res.killed[k.Rank] = true
		pending++
	}
loop:
	for !done() {
		if err := rs.advance(func(r int) bool { return kids[r].exited }); err != nil {
			res.lost = append(res.lost, err.Error())
			break loop
		}
		if gate != nil {
			gate.step(time.Now(), h.Interval, func(r int) bool { return !kids[r].exited && !res.killed[r] },
				func(r int) int { return len(res.returns[r]) }, func(q, r int) bool { return rs.suspected[q][r] }, pending,
				killRank, func(r int) { tell(r, "call") })
		}
		select {
		case <-gate.wakeup():
		case i := <-rs.due:
			rs.isDue[i] = true
		case i := <-killNow:
			if gate != nil { // made at the next barrier
				gate.due[i] = true
				continue
			}
			killRank(i)
		case ev := <-events:
			if rs.line(ev) {
				continue
			}
			switch {
			case ev.line == "":
				kids[ev.rank].exited = true
				if !res.killed[ev.rank] {
					res.lost = append(res.lost, fmt.Sprintf("p%d exited on its own (%v)", ev.rank, ev.exit))
					break loop
				}
				pending--
				for i := range h.Kills {
					if int(h.Kills[i].Rank) == ev.rank {
						h.Kills[i].Dead = time.Since(start)
					}
				}
				// The perfect detector: every process still running
				// learns of the death, which has happened.
				if h.Detector == "perfect" {
					for r := range n {
						tell(r, fmt.Sprintf("suspect %d", ev.rank))
					}
				}
			case ev.line == "done":
				res.finished[ev.rank] = true
			case strings.HasPrefix(ev.line, "return "):
				if rt, err := parseReturn(ev.line, start); err == nil {
					if runScenarios[h.Model].ordinal {
						rt.Instance = uint64(len(res.returns[ev.rank]))
					}
					res.returns[ev.rank] = append(res.returns[ev.rank], rt)
				} else {
					fmt.Fprintf(stderr, "ftcheck run: p%d: %v\n", ev.rank, err)
				}
			}
		case <-timeout.C:
			res.notFinished = true
			break loop
		case <-sigs:
			res.interrupted = true
			break loop
		}
	}
	res.seconds = time.Since(start).Seconds()
	for r := range n {
		tell(r, "stop")
	}
	for r := range n {
		if !kids[r].exited && !res.killed[r] {
			kids[r].stdin.Close()
		}
	}
	// The deferred clean-up waits for the exits, killing what lingers.
	grace := time.After(10 * time.Second)
	stopTick := func(hd *runHeader, r int, k string) {
		if hd.StopTicks == nil {
			hd.StopTicks = slices.Repeat([]int64{-1}, n)
		}
		if t, err := strconv.ParseInt(k, 10, 64); err == nil {
			hd.StopTicks[r] = t
		}
	}
	for slices.ContainsFunc(kids, func(c *child) bool { return !c.exited }) {
		select {
		case ev := <-events:
			if ev.line == "" {
				kids[ev.rank].exited = true
			}
			if k, ok := strings.CutPrefix(ev.line, "stopped "); ok {
				stopTick(h, ev.rank, k)
			}
			if k, ok := strings.CutPrefix(ev.line, "fdstopped "); ok && h.fd != nil {
				stopTick(h.fd, ev.rank, k)
			}
		case <-grace:
			return res, nil
		}
	}
	return res, nil
}

// await reads events until want holds for one line of every child, or
// the timeout passes, a child exits or a signal arrives.
func await(events chan childEvent, kids []*child, sigs chan os.Signal, timeout time.Duration, what string, want func(childEvent) bool) error {
	got := make([]bool, len(kids))
	left := len(kids)
	t := time.NewTimer(timeout)
	defer t.Stop()
	for left > 0 {
		select {
		case ev := <-events:
			if ev.line == "" {
				kids[ev.rank].exited = true
				return fmt.Errorf("run: rank %d exited before it was %s (%v)", ev.rank, what, ev.exit)
			}
			if !got[ev.rank] && want(ev) {
				got[ev.rank] = true
				left--
			}
		case <-t.C:
			return fmt.Errorf("run: %d processes not %s after %v", left, what, timeout)
		case <-sigs:
			return fmt.Errorf("run: interrupted while the processes were getting %s", what)
		}
	}
	return nil
}

// parseReturn reads "return INSTANCE LATENCY_NS AT_UNIX_NS HEX TEXT".
func parseReturn(line string, start time.Time) (returned, error) {
	f := strings.SplitN(line, " ", 6)
	if len(f) != 6 {
		return returned{}, fmt.Errorf("bad line %q", line)
	}
	a, err1 := strconv.ParseUint(f[1], 10, 64)
	lat, err2 := strconv.ParseInt(f[2], 10, 64)
	at, err3 := strconv.ParseInt(f[3], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return returned{}, fmt.Errorf("bad line %q: %v", line, err)
	}
	return returned{Instance: a, Latency: time.Duration(lat), At: time.Unix(0, at).Sub(start), enc: f[4], Value: f[5]}, nil
}

// runReport is run's summary.
type runReport struct {
	Model      string            `json:"model"`
	Mode       string            `json:"mode"`
	N          int               `json:"n"`
	Seed       uint64            `json:"seed"`
	Params     map[string]string `json:"params"`
	Seconds    float64           `json:"seconds"`
	Kills      []kill            `json:"kills"`
	Restarts   []restart         `json:"restarts,omitempty"`
	Agreements []runInstance     `json:"instances"`
	Processes  []runProcess      `json:"processes"`
	Problems   []string          `json:"problems"`
	OK         bool              `json:"ok"`
	TraceDir   string            `json:"trace_dir,omitempty"`
	// Notes are the scenario's comparisons (msglog: with the failure-free
	// runs).
	Notes []string `json:"notes,omitempty"`
}

type runInstance struct {
	// Group is the logical process whose replicas are compared (replica:
	// "P1"); empty when every process is compared with every other.
	Group    string  `json:"group,omitempty"`
	Label    string  `json:"label"`
	Instance uint64  `json:"instance"`
	Value    string  `json:"value"`
	Agreed   bool    `json:"agreed"`
	Returned int     `json:"returned"` // live processes that returned it
	MinMs    float64 `json:"latency_min_ms"`
	MedianMs float64 `json:"latency_median_ms"`
	MaxMs    float64 `json:"latency_max_ms"`
}

type runProcess struct {
	Rank     int        `json:"rank"`
	Killed   bool       `json:"killed"`
	Finished bool       `json:"finished"`
	Returns  []returned `json:"returns"`
	// Before is a restarted rank's outputs before its kill.
	Before []returned `json:"before_restart,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// report checks agreement among the live processes and gathers latencies.
func (res *groupResult) report(h *runHeader, em *env.Model, traceDir string) *runReport {
	rep := &runReport{Model: h.Model, Mode: "run", N: h.N, Seed: h.Seed, Params: h.Params, Seconds: res.seconds,
		Kills: h.Kills, Restarts: h.Restarts, Agreements: []runInstance{}, Processes: []runProcess{}, Problems: slices.Clone(res.lost), TraceDir: traceDir}
	if rep.Problems == nil {
		rep.Problems = []string{}
	}
	type key struct {
		group    string
		instance uint64
	}
	byInstance := map[key][]returned{}
	cfg := em.Config()
	sc := runScenarios[h.Model]
	for r := range h.N {
		rets := res.returns[r]
		if rets == nil {
			rets = []returned{}
		}
		rep.Processes = append(rep.Processes, runProcess{Rank: r, Killed: res.killed[r], Finished: res.finished[r], Returns: rets, Before: res.before[r]})
		if res.killed[r] {
			continue
		}
		if !res.finished[r] {
			rep.Problems = append(rep.Problems, fmt.Sprintf("p%d did not finish the scenario (%d outputs)", r, len(rets)))
		}
		group := ""
		if lp, ok := cfg.NewNode(core.Rank(r), h.N).(interface{ Logical() int }); ok {
			group = fmt.Sprintf("P%d", lp.Logical())
		}
		if sc.perRank {
			group = fmt.Sprintf("p%d", r)
		}
		for _, rt := range rets {
			if sc.output == core.EffSuspect { // a detection: its latency counts from the kill
				i := slices.IndexFunc(h.Kills, func(k kill) bool { return k.Done && uint64(k.Rank) == rt.Instance })
				if i < 0 {
					rep.Problems = append(rep.Problems, fmt.Sprintf("p%d reported p%d failed, which was not killed", r, rt.Instance))
					continue
				}
				rt.Latency = rt.At - h.Kills[i].Killed
			}
			k := key{group, rt.Instance}
			byInstance[k] = append(byInstance[k], rt)
		}
	}
	ids := slices.Collect(maps.Keys(byInstance))
	slices.SortFunc(ids, func(a, b key) int {
		if c := strings.Compare(a.group, b.group); c != 0 {
			return c
		}
		return cmp.Compare(a.instance, b.instance)
	})
	for _, a := range ids {
		rs := byInstance[a]
		lat := make([]time.Duration, len(rs))
		label := fmt.Sprintf("%s%d", sc.label, a.instance)
		if a.group != "" {
			label = a.group + " " + label
		}
		in := runInstance{Group: a.group, Label: label, Instance: a.instance, Value: rs[0].Value, Agreed: true, Returned: len(rs)}
		for i, rt := range rs {
			lat[i] = rt.Latency
			if rt.enc != rs[0].enc {
				in.Agreed = false
			}
		}
		if !in.Agreed {
			var vals []string
			for _, rt := range rs {
				vals = append(vals, rt.Value)
			}
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: the live processes output different values: %s", label, strings.Join(vals, " | ")))
		}
		slices.Sort(lat)
		in.MinMs, in.MedianMs, in.MaxMs = ms(lat[0]), ms(lat[len(lat)/2]), ms(lat[len(lat)-1])
		rep.Agreements = append(rep.Agreements, in)
	}
	if res.notFinished {
		rep.Problems = append(rep.Problems, "the deadline passed")
	}
	if res.interrupted {
		rep.Problems = append(rep.Problems, "interrupted")
	}
	if sc.compare != nil && !res.interrupted {
		note, problems := sc.compare(h, rep)
		if note != "" {
			rep.Notes = append(rep.Notes, note)
		}
		rep.Problems = append(rep.Problems, problems...)
	}
	rep.OK = len(rep.Problems) == 0
	return rep
}

func printRun(w io.Writer, rep *runReport, name string) {
	fmt.Fprintf(w, "ftcheck run %s: %d processes on 127.0.0.1, seed %d\n%s\n", rep.Model, rep.N, rep.Seed, name)
	for _, k := range rep.Kills {
		if k.Done {
			fmt.Fprintf(w, "killed p%d at %.1fms (asked %v), its exit seen at %.1fms\n", k.Rank, ms(k.Killed), k.At, ms(k.Dead))
		} else {
			fmt.Fprintf(w, "p%d not killed: the scenario ended before %v\n", k.Rank, k.At)
		}
	}
	printRestarts(w, rep) // run_restart.go
	width := len("instance")
	for _, in := range rep.Agreements {
		width = max(width, len(in.Label))
	}
	fmt.Fprintf(w, "%-*s %-9s %-8s %s\n", width, "instance", "returned", "agreed", "latency min/median/max (ms) over the live processes, value")
	for _, in := range rep.Agreements {
		fmt.Fprintf(w, "%-*s %-9d %-8v %.2f / %.2f / %.2f  %s\n", width, in.Label, in.Returned, in.Agreed, in.MinMs, in.MedianMs, in.MaxMs, in.Value)
	}
	for _, p := range rep.Processes {
		if p.Killed {
			var vals []string
			for _, rt := range p.Returns {
				if runScenarios[rep.Model].ordinal { // the order is the output: its values
					vals = append(vals, rt.Value)
				} else {
					vals = append(vals, fmt.Sprintf("%s%d", runScenarios[rep.Model].label, rt.Instance))
				}
			}
			if len(vals) == 0 {
				fmt.Fprintf(w, "p%d (killed) had no output before it died\n", p.Rank)
			} else {
				fmt.Fprintf(w, "p%d (killed) had %d outputs before it died: %s\n", p.Rank, len(p.Returns), strings.Join(vals, " "))
			}
		}
	}
	live := 0
	for _, p := range rep.Processes {
		if !p.Killed {
			live++
		}
	}
	for _, note := range rep.Notes {
		fmt.Fprintln(w, note)
	}
	if rep.OK {
		fmt.Fprintf(w, "every live process (%d of %d) finished and their outputs agree, in %.3fs\n", live, rep.N, rep.Seconds)
	} else {
		for _, p := range rep.Problems {
			fmt.Fprintln(w, "problem:", p)
		}
	}
	if rep.TraceDir != "" {
		fmt.Fprintf(w, "trace: %s (ftcheck validate %s)\n", rep.TraceDir, rep.TraceDir)
	}
}
