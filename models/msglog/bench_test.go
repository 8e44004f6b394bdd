package msglog

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// BenchmarkFig51Recovery: the Fig. 5.1 scenario (P1 crashes after its
// third delivery and recovers), one run per iteration, each logger.
func BenchmarkFig51Recovery(b *testing.B) {
	for _, k := range []el.Kind{el.Centralized, el.Classic, el.Parallel} {
		b.Run(k.String(), func(b *testing.B) {
			p := Params{Program: "fig51", Procs: 3, Logger: k, F: 1}
			for b.Loop() {
				if _, err := Simulate(p, Crash{Rank: 1, K: 3}, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGatherBFS: the complete search of the gather program with
// delayed acknowledgements, one crash and its restart (82146 states).
func BenchmarkGatherBFS(b *testing.B) {
	m, err := NewModel(Params{Program: "gather", Procs: 3, Logger: el.Centralized, Crashes: 1, Recoveries: 1, DelayedAck: true})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res := checker.Search(m, checker.Options{MaxMemory: 1 << 30})
		if !res.Complete {
			b.Fatalf("incomplete: %v", res.Stop)
		}
		b.ReportMetric(float64(res.States), "states")
	}
}
