package paxos_test

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
)

// BenchmarkPaxos measures the checker on Paxos models built as `ftcheck
// check paxos ARGS` builds them: one complete search per iteration (the
// explicit-graph search, termination included), reporting generated and
// distinct states per second.
//
//	go test ./models/paxos -run XXX -bench Paxos -benchtime 1x
func BenchmarkPaxos(b *testing.B) {
	for _, args := range []string{"--instances 1 --crashes 0 --loss 1", "--instances 1"} {
		b.Run(args, func(b *testing.B) {
			r := build(b, args)
			var gen, states int64
			var secs float64
			for b.Loop() {
				res := r.BFS(checker.Options{Workers: 1})
				if res.Err != nil || !res.Complete || len(res.Violations) > 0 {
					b.Fatalf("err=%v complete=%v violations=%d", res.Err, res.Complete, len(res.Violations))
				}
				gen += res.Transitions
				states += res.States
				secs += res.Seconds
			}
			b.ReportMetric(float64(gen)/secs, "generated/s")
			b.ReportMetric(float64(states)/secs, "distinct/s")
		})
	}
}
