package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/netnode"
	"github.com/ftkernel/ftkernel/registry"
)

// nodeMeta is the Meta of a rank's log header: the model and its
// parameters, which rebuild the model the run's processes were made from.
type nodeMeta struct {
	Model  string            `json:"model"`
	Params map[string]string `json:"params"`
}

// cmdRunNode is one rank of ftcheck run (hidden): it builds the model from
// --params, takes its rank's machine and calls from it, and runs them with
// netnode. It talks to ftcheck run over its stdin and stdout, one line at a
// time:
//
//	out: addr HOST:PORT                     listening
//	in:  peers ADDR0 ADDR1 …                every rank's address
//	out: connected                          both directions to every peer
//	in:  start                              make the first call
//	out: return A LATENCY_NS AT_NS HEX TEXT a call returned
//	out: done                               every call returned
//	in:  suspect Q                          Q is dead (the perfect detector)
//	in:  call                               a gated scenario's next call
//
// With --detector, "addr" gives a second address, the detector node's,
// and "peers" is followed by "fdpeers ADDR0 …", the detectors' addresses;
// the detector's suspicions replace the parent's.
//
// With --state-dir the node keeps its stable storage there (netnode
// StateDir); with --restart it is a restarted process, rebuilt from that
// directory (netnode.Restore) as the next incarnation (run_restart.go):
//
//	in:  peers ADDR#INC …                   "-" for a dead rank; #INC when above 0
//	out: suspected Q                        the node stepped Q's suspicion
//	in:  recovered Q ADDR INC               Q restarted: connect to it, step Recovered(Q)
//
//	in:  stop, or end of input              shut down, exit 0
//	out: stopped K, fdstopped K             in ticks: the tick the node (the
//	                                        detector's node) stopped in
func cmdRunNode(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run-node", flag.ContinueOnError)
	model := fs.String("model", "", "model name")
	params := fs.String("params", "{}", "model parameters, JSON")
	rank := fs.Int("rank", -1, "this process's rank")
	logPath := fs.String("log", "", "NDJSON log file")
	interval := fs.Duration("interval", 10*time.Millisecond, "pause between a return and the next call")
	timeUnit := fs.Duration("time-unit", time.Millisecond, "one protocol time unit")
	fdModel := fs.String("detector", "", "heartbeat detector run beside the protocol (ringfd, gossipfd; empty: the parent's perfect detector)")
	fdParams := fs.String("detector-params", "{}", "the detector model's parameters, JSON")
	fdLog := fs.String("detector-log", "", "the detector's NDJSON log file")
	fdUnit := fs.Duration("detector-time-unit", 50*time.Millisecond, "one tick of the detector")
	stateDir := fs.String("state-dir", "", "stable storage directory (crash-recovery)")
	restart := fs.Bool("restart", false, "restart from --state-dir as the next incarnation")
	if err := parseFlags(fs, args, stdout, "run-node", "ftcheck run-node (started by ftcheck run)"); err != nil {
		return err
	}
	var meta nodeMeta
	meta.Model = *model
	if err := json.Unmarshal([]byte(*params), &meta.Params); err != nil {
		return usageFor(runHelp, "run-node: --params: %v", err)
	}
	p, err := registry.Lookup(*model)
	if err != nil {
		return usageFor(runHelp, "run-node: %v", err)
	}
	r, err := p.BuildParams(meta.Params)
	if err == nil {
		r, err = runnerFor(runScenarios[*model], r)
	}
	if err != nil {
		return usageFor(runHelp, "run-node: %v", err)
	}
	em, ok := registry.EnvModel(r)
	if !ok || em.Config().Codec.Message == nil || len(em.Init()) != 1 {
		return usageFor(runHelp, "run-node: model %s has no runnable scenario", *model)
	}
	cfg := em.Config()
	n := em.N()
	me := core.Rank(*rank)
	if !me.Valid(n) {
		return usageFor(runHelp, "run-node: --rank %d of %d", *rank, n)
	}
	calls := em.Init()[0].Calls(me)
	machine := cfg.NewNode(me, n)
	sc, ok := runScenarios[*model]
	if !ok {
		return usageFor(runHelp, "run-node: model %s has no scenario", *model)
	}
	var restored *netnode.Restored
	if *restart {
		if restored, err = restoreNode(*stateDir, *rank, *logPath, machine, cfg.Codec.Message, calls); err != nil {
			return err
		}
		machine, calls = restored.Machine, calls[restored.Calls:]
	}
	finished := programFinished(machine, slices.Contains(cfg.Survivors, me))
	if sc.finish == finishProgram && finished == nil {
		return usageFor(runHelp, "run-node: model %s's machine does not report Finished", *model)
	}

	var outMu sync.Mutex
	say := func(format string, args ...any) {
		outMu.Lock()
		defer outMu.Unlock()
		fmt.Fprintf(stdout, format+"\n", args...)
	}
	f, err := os.Create(*logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	logw := bufio.NewWriterSize(f, 1<<16)
	defer logw.Flush()
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	ln, err := netnode.Listen()
	if err != nil {
		return err
	}
	var side *sideDetector
	var sideMeta *nodeMeta
	if *fdModel != "" {
		if side, sideMeta, err = newSideDetector(*fdModel, *fdParams, me, n); err != nil {
			return usageFor(runHelp, "run-node: %v", err)
		}
		defer side.close()
		say("addr %s %s", ln.Addr(), side.ln.Addr())
	} else {
		say("addr %s", ln.Addr())
	}
	lines := make(chan string, 16)
	go func() {
		s := bufio.NewScanner(os.Stdin)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	next := func() (string, bool) {
		l, ok := <-lines
		return l, ok
	}
	l, ok := next()
	peers, isPeers := strings.CutPrefix(l, "peers ")
	if !ok || !isPeers {
		return fmt.Errorf("run-node p%d: want the peers' addresses, got %q", me, l)
	}
	addrs, incs, err := parsePeers(peers, n)
	if err != nil {
		return fmt.Errorf("run-node p%d: %v", me, err)
	}
	det := netnode.NewPerfect()
	if side != nil {
		l, ok := next()
		fdPeers, isPeers := strings.CutPrefix(l, "fdpeers ")
		if !ok || !isPeers {
			return fmt.Errorf("run-node p%d: want the detectors' addresses, got %q", me, l)
		}
		if err := side.start(sideMeta, me, strings.Fields(fdPeers), *fdLog, *fdUnit, det.Report, stderr); err != nil {
			return err
		}
	}
	// The driver: the calls of the model's schedule, in order; under
	// Blocking each one --interval after the previous returned, else one
	// every --interval.
	var (
		mu       sync.Mutex
		node     *netnode.Node
		made     int
		returns  int
		callTime []time.Time
		start    time.Time
		doneOnce sync.Once
		reported core.RankSet // under sc.known: the ranks reported so far
	)
	done := func() { doneOnce.Do(func() { say("done") }) }
	call := func() {
		mu.Lock()
		defer mu.Unlock()
		if made >= len(calls) {
			return
		}
		callTime = append(callTime, time.Now())
		made++
		node.Call(calls[made-1])
	}
	ncfg := netnode.Config{
		Rank: me, Peers: addrs, Listener: ln, Machine: machine, Decode: cfg.Codec.Message,
		TimeUnit: *timeUnit, Detector: det, Trace: logw, Meta: metaJSON,
		StateDir: *stateDir, Incarnations: incs,
		Stepped: func(ev core.Event) {
			if ev.Kind == core.EvSuspect {
				say("suspected %d", ev.Peer)
			}
		},
		Outputs: func(e core.Effect) {
			if e.Kind != sc.output || sc.known != nil || sc.keep != nil && !sc.keep(e) {
				return
			}
			now := time.Now()
			mu.Lock()
			lat := now.Sub(start) // a delivery or an output: since the scenario started
			if e.Kind == core.EffReturn {
				lat = 0
				if returns < len(callTime) {
					lat = now.Sub(callTime[returns])
				}
				returns++
			}
			all := returns == len(calls)
			mu.Unlock()
			v := []byte{}
			text := "⊥"
			instance := e.Instance
			switch {
			case e.Kind == core.EffSuspect:
				instance, text = uint64(e.Peer), "reported failed"
			case e.Value != nil:
				v, text = e.Value.AppendBinary(v), e.Value.String()
			}
			say("return %d %d %d %s %s", instance, lat.Nanoseconds(), now.UnixNano(), hex.EncodeToString(v), text)
			switch {
			case sc.finish == finishDelivered && e.Kind == core.EffDeliver:
				done()
			case sc.finish != finishReturns || e.Kind != core.EffReturn:
			case all:
				done()
			case sc.gated: // the parent calls the next ("call")
			case cfg.Blocking:
				time.AfterFunc(*interval, call)
			}
		},
		AfterStep: func() {
			if sc.finish == finishProgram && finished.Finished() {
				done()
			}
			if sc.known != nil {
				now := time.Now()
				sc.known(machine).Each(func(q core.Rank) {
					if !reported.Has(q) {
						reported.Add(q)
						say("return %d 0 %d  reported failed", q, now.UnixNano())
					}
				})
			}
		},
		Logf: func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) },
	}
	if restored != nil {
		ncfg.Incarnation, ncfg.Clock, ncfg.Restored = restored.Incarnation, restored.Clock, restored.Steps
	}
	node, err = netnode.New(ncfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cctx, ccancel := context.WithTimeout(ctx, 60*time.Second)
	err = node.Connect(cctx)
	if err == nil && side != nil {
		err = side.node.Connect(cctx)
	}
	ccancel()
	if err != nil {
		return err
	}
	say("connected")
	l, ok = next()
	at, isStart := strings.CutPrefix(l, "start ")
	ns, err := strconv.ParseInt(at, 10, 64)
	if !ok || !isStart || err != nil {
		return fmt.Errorf("run-node p%d: want start TIME, got %q", me, l)
	}
	epoch := time.Unix(0, ns)
	time.Sleep(time.Until(epoch))
	mu.Lock()
	start = time.Now()
	mu.Unlock()
	// Nothing has stepped the machine yet: reading it here does not race.
	if len(calls) == 0 && (sc.finish == finishReturns || sc.finish == finishProgram && finished.Finished()) {
		done()
	}
	runErr := make(chan error, 2)
	sideDone := make(chan error, 1)
	if side != nil {
		for _, in := range side.calls {
			side.node.Call(in) // stepped in tick 0
		}
		go func() {
			err := side.node.RunTicks(ctx, epoch)
			if err != nil {
				runErr <- err
			}
			sideDone <- err
		}()
	}
	go func() {
		if cfg.Timing == env.BoundedDelay {
			runErr <- node.RunTicks(ctx, epoch)
		} else {
			runErr <- node.Run(ctx)
		}
	}()
	switch {
	case len(calls) == 0, sc.gated:
	case cfg.Blocking:
		call()
	default:
		for i := range calls {
			time.AfterFunc(time.Duration(i)*(*interval), call)
		}
	}
	for {
		select {
		case err := <-runErr:
			return err
		case l, ok := <-lines:
			q, isSuspect := strings.CutPrefix(l, "suspect ")
			back, isRecovered := strings.CutPrefix(l, "recovered ")
			switch {
			case ok && l == "call" && sc.gated:
				call()
			case isRecovered:
				if err := rejoin(node, back, n); err != nil {
					return fmt.Errorf("run-node p%d: %v", me, err)
				}
			case !ok || l == "stop":
				// A run in ticks reports the tick each node stopped in:
				// validate replays the ticks every live node finished.
				cancel()
				err := <-runErr
				if cfg.Timing == env.BoundedDelay {
					say("stopped %d", node.Tick())
				}
				if side != nil {
					<-sideDone
					say("fdstopped %d", side.node.Tick())
				}
				return err
			case isSuspect:
				r, err := strconv.Atoi(q)
				if err != nil {
					return fmt.Errorf("run-node p%d: bad line %q", me, l)
				}
				det.Report(core.Rank(r))
			default:
				return fmt.Errorf("run-node p%d: bad line %q", me, l)
			}
		}
	}
}
