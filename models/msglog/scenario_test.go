package msglog

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// TestScenarios runs testdata/*.txt: the spec's test cases 14–18 (§7) as
// runs of a program with one crash (regenerate with -rewrite). The
// command:
//
//	run program=fig51 procs=3 [logger=centralized] [crash=1@3] [seed=0] [delayed-ack] [checkpoint-every=K]
//
// prints who rolled back, the sources of the replayed receives, the
// replayed probes with their repetitions, the messages each peer re-sent,
// the sends suppressed, each process's log at the end, and whether the
// outputs equal the failure-free run's.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if filepath.Ext(path) != ".txt" {
			return // a saved trace (gap_test.go), not a scenario
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "run" {
				d.Fatalf(t, "unknown command %q", d.Cmd)
			}
			p := Params{Program: "fig51", Procs: 3, F: 1}
			var crash string
			var seed uint64
			logger := "centralized"
			if d.HasArg("program") {
				d.ScanArgs(t, "program", &p.Program)
			}
			if d.HasArg("procs") {
				d.ScanArgs(t, "procs", &p.Procs)
			}
			if d.HasArg("logger") {
				d.ScanArgs(t, "logger", &logger)
			}
			if d.HasArg("crash") {
				d.ScanArgs(t, "crash", &crash)
			}
			if d.HasArg("seed") {
				d.ScanArgs(t, "seed", &seed)
			}
			if d.HasArg("checkpoint-every") {
				d.ScanArgs(t, "checkpoint-every", &p.CheckpointEvery)
			}
			p.DelayedAck = d.HasArg("delayed-ack")
			k, err := el.ParseKind(logger)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			p.Logger = k
			var c Crash
			if crash != "" {
				if c, err = ParseCrash(crash, p.Procs); err != nil {
					d.Fatalf(t, "%v", err)
				}
			}
			ff, err := Simulate(p, Crash{}, seed)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			r, err := Simulate(p, c, seed)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "rolled back: %s\n", ints(r.RolledBack))
			for q := range p.Procs {
				if s, ok := r.Replayed[q]; ok {
					fmt.Fprintf(&b, "p%d replays receives from: %s\n", q, ints(s))
				}
				if s, ok := r.Probes[q]; ok {
					fmt.Fprintf(&b, "p%d replays probes: %s\n", q, strings.Join(s, ", "))
				}
			}
			var rs []string
			for q := range p.Procs {
				if k, ok := r.Resent[q]; ok {
					rs = append(rs, fmt.Sprintf("p%d %d", q, k))
				}
			}
			fmt.Fprintf(&b, "re-sent: [%s]\nsuppressed: %d\n", strings.Join(rs, ", "), r.Suppressed)
			for q, l := range r.Logs {
				fmt.Fprintf(&b, "p%d log: [%s]\n", q, strings.Join(l, " "))
			}
			fmt.Fprintf(&b, "outputs equal the failure-free run's: %v\n", ints(r.Outputs) == ints(ff.Outputs))
			if r.Violation != "" {
				fmt.Fprintf(&b, "violation: %s\n", r.Violation)
			}
			return b.String()
		})
	})
}
