package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/netnode"
	"github.com/ftkernel/ftkernel/registry"
)

// sideDetector is a heartbeat detector (ringfd or gossipfd) run by one
// rank's process beside its protocol node (ftcheck run --detector): a
// netnode of its own, on its own port, in ticks, with its own log. Every
// host it holds failed is reported, once, to the protocol node's detector.
type sideDetector struct {
	ln    net.Listener
	node  *netnode.Node
	calls []core.Input
	log   *bufio.Writer
	file  *os.File
}

// newSideDetector builds rank me's detector machine from the model and its
// parameters (JSON) and listens; start makes its node.
func newSideDetector(model, params string, me core.Rank, n int) (*sideDetector, *nodeMeta, error) {
	meta := &nodeMeta{Model: model}
	if err := json.Unmarshal([]byte(params), &meta.Params); err != nil {
		return nil, nil, fmt.Errorf("--detector-params: %v", err)
	}
	sc, ok := runScenarios[model]
	if !ok || sc.finish != finishDetected {
		return nil, nil, fmt.Errorf("--detector %s is not a heartbeat detector", model)
	}
	ln, err := netnode.Listen()
	if err != nil {
		return nil, nil, err
	}
	return &sideDetector{ln: ln}, meta, nil
}

// start builds the detector's node over peers (its group's addresses),
// logging to logPath in ticks of unit. report is called once per host the
// detector holds failed, on the detector's stepping goroutine.
func (d *sideDetector) start(meta *nodeMeta, me core.Rank, peers []string, logPath string, unit time.Duration,
	report func(core.Rank), stderr io.Writer) error {
	p, err := registry.Lookup(meta.Model)
	if err != nil {
		return err
	}
	r, err := p.BuildParams(meta.Params)
	if err != nil {
		return err
	}
	em, ok := registry.EnvModel(r)
	if !ok || em.Config().Codec.Message == nil || em.N() != len(peers) || len(em.Init()) != 1 {
		return fmt.Errorf("--detector %s: not a runnable model over %d hosts", meta.Model, len(peers))
	}
	cfg := em.Config()
	machine := cfg.NewNode(me, em.N())
	d.calls = em.Init()[0].Calls(me)
	if d.file, err = os.Create(logPath); err != nil {
		return err
	}
	d.log = bufio.NewWriterSize(d.file, 1<<16)
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	known := runScenarios[meta.Model].known
	var told core.RankSet
	tell := func(q core.Rank) {
		if !told.Has(q) {
			told.Add(q)
			report(q)
		}
	}
	d.node, err = netnode.New(netnode.Config{
		Rank: me, Peers: peers, Listener: d.ln, Machine: machine, Decode: cfg.Codec.Message,
		TimeUnit: unit, Trace: d.log, Meta: metaJSON,
		Outputs: func(e core.Effect) {
			if e.Kind == core.EffSuspect && known == nil {
				tell(e.Peer)
			}
		},
		AfterStep: func() {
			if known != nil {
				known(machine).Each(tell)
			}
		},
		Logf: func(format string, args ...any) { fmt.Fprintf(stderr, "detector: "+format+"\n", args...) },
	})
	return err
}

// close flushes and closes the log.
func (d *sideDetector) close() {
	if d.log != nil {
		d.log.Flush()
		d.file.Close()
	}
}
