package twophase

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
)

// BenchmarkTwoPhase explores TwoPhase completely for RM=5..8 and reports
// generated/s, distinct/s and the visited set's bytes per distinct state.
func BenchmarkTwoPhase(b *testing.B) {
	for rm := 5; rm <= 8; rm++ {
		b.Run(fmt.Sprint("RM=", rm), func(b *testing.B) {
			m, _ := New(rm)
			var gen, dist int64
			var sec, bps float64
			for b.Loop() {
				r := checker.BFS[State](m, checker.Options{})
				if r.States != tlcCounts[rm][0] || r.Transitions != tlcCounts[rm][1] {
					b.Fatalf("counts %d/%d", r.States, r.Transitions)
				}
				gen += r.Transitions
				dist += r.States
				sec += r.Seconds
				bps = r.BytesPerState()
			}
			b.ReportMetric(float64(gen)/sec, "generated/s")
			b.ReportMetric(float64(dist)/sec, "distinct/s")
			b.ReportMetric(bps, "bytes/state")
		})
	}
}
