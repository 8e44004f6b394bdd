package era

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// BenchmarkERA measures the checker on ERA models built exactly as
// `ftcheck check era --n N --crashes F` builds them: one complete BFS per
// iteration (1 worker, so the figures measure the per-state cost, not the
// scheduler), reporting generated and distinct states per second and the
// visited set's bytes per state.
//
//	go test ./registry -run XXX -bench 'ERA/' -benchtime 1x
func BenchmarkERA(b *testing.B) {
	for _, c := range []struct{ n, crashes int }{{3, 1}, {4, 1}, {4, 2}} {
		b.Run(fmt.Sprintf("N=%d/crashes=%d", c.n, c.crashes), func(b *testing.B) {
			r := buildBench(b, "era", "--n", fmt.Sprint(c.n), "--crashes", fmt.Sprint(c.crashes))
			var res *checker.Result
			var gen, states int64
			var secs float64
			for b.Loop() {
				res = r.BFS(checker.Options{Workers: 1})
				if res.Err != nil || !res.Complete || len(res.Violations) > 0 {
					b.Fatalf("BFS: err=%v complete=%v violations=%d", res.Err, res.Complete, len(res.Violations))
				}
				gen += res.Transitions
				states += res.States
				secs += res.Seconds
			}
			b.ReportMetric(float64(gen)/secs, "generated/s")
			b.ReportMetric(float64(states)/secs, "distinct/s")
			b.ReportMetric(res.BytesPerState(), "bytes/state")
			b.ReportMetric(float64(res.States), "states")
		})
	}
}

// BenchmarkERAWalk measures seeded random walks of ERA (the `ftcheck
// simulate era` model, one agreement, no crash) on one worker, reporting
// steps per second.
func BenchmarkERAWalk(b *testing.B) {
	for _, n := range []int{64, 1024} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			p := Params{N: n, Agreements: 1, Values: 2, Op: erasm.And}
			m, err := NewModel(p, [][][]core.Input{randomInputs(p, 1)})
			if err != nil {
				b.Fatal(err)
			}
			var steps int64
			var secs float64
			seed := uint64(0)
			for b.Loop() {
				res := checker.Walk(m, checker.WalkOptions{Walks: 1, MaxSteps: 200 * n, Seed: seed, Workers: 1})
				if res.Err != nil || res.Violation != nil {
					b.Fatalf("walk: err=%v violation=%v", res.Err, res.Violation)
				}
				steps += res.Steps
				secs += res.Seconds
				seed++
			}
			b.ReportMetric(float64(steps)/secs, "steps/s")
			b.ReportMetric(float64(steps)/float64(b.N), "steps/walk")
		})
	}
}

var buildBench = modeltest.Build
