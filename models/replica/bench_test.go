package replica

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// BenchmarkReplicaBFS measures a complete BFS of ping-pong with two
// replicas per process and one crash, on one worker: generated and
// distinct states per second.
//
//	go test ./models/replica -run XXX -bench ReplicaBFS -benchtime 3x
func BenchmarkReplicaBFS(b *testing.B) {
	p := Params{Program: "ping-pong", Procs: 2, Degree: 2, ReplicateRank0: true, Crashes: 1, Network: env.FIFO}
	var gen, states int64
	var secs float64
	for b.Loop() {
		res := search(b, p, checker.Options{})
		if !res.Complete || len(res.Violations) > 0 {
			b.Fatalf("complete=%v violations=%d", res.Complete, len(res.Violations))
		}
		gen += res.Transitions
		states = res.States
		secs += res.Seconds
	}
	b.ReportMetric(float64(gen)/secs, "generated/s")
	b.ReportMetric(float64(states), "states")
}

// BenchmarkReplicaStep measures one replica step: a master of ping-pong
// receiving the reply, delivering it and running on.
func BenchmarkReplicaStep(b *testing.B) {
	progs, err := sm.Programs("ping-pong", 2, 1)
	if err != nil {
		b.Fatal(err)
	}
	l, _ := sm.NewLayout(2, 3, true)
	nodes, err := sm.NewAll(sm.Config{Layout: l, Programs: progs})
	if err != nil {
		b.Fatal(err)
	}
	base := nodes[0]
	if _, err := base.Step(core.Call(sm.Start{}), nil); err != nil {
		b.Fatal(err)
	}
	for base.IsMaster() && !base.Waiting() {
		if _, err := base.Step(core.Timer(sm.PumpTimer), nil); err != nil {
			b.Fatal(err)
		}
	}
	reply := core.Receive(3, sm.Data{MID: sm.MID{Src: 1, Dst: 0}, Payload: 2})
	var out []core.Effect
	for b.Loop() {
		n := base.Clone()
		if out, err = n.Step(reply, out[:0]); err != nil || len(out) == 0 {
			b.Fatalf("%v %v", out, err)
		}
	}
}
