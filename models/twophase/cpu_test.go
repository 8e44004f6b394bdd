package twophase

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/checker"
)

// cpuSeconds is the process's user+system CPU time (getrusage), which is
// far less sensitive than wall time to other load on a shared machine.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// BenchmarkTwoPhaseCPU explores TwoPhase RM=8 with 1 and 2 workers and
// reports states generated per CPU-second (getrusage) next to the wall rate.
func BenchmarkTwoPhaseCPU(b *testing.B) {
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprint("RM=8/workers=", w), func(b *testing.B) {
			m, _ := New(8)
			var gen int64
			var cpu, wall float64
			for b.Loop() {
				c0, t0 := cpuSeconds(), time.Now()
				r := checker.BFS[State](m, checker.Options{Workers: w})
				cpu += cpuSeconds() - c0
				wall += time.Since(t0).Seconds()
				if r.States != tlcCounts[8][0] || r.Transitions != tlcCounts[8][1] {
					b.Fatalf("counts %d/%d", r.States, r.Transitions)
				}
				gen += r.Transitions
			}
			b.ReportMetric(float64(gen)/cpu, "generated/cpu-s")
			b.ReportMetric(float64(gen)/wall, "generated/s")
		})
	}
}

// BenchmarkSearchModes explores RM=8 with DFS, DFS with lassos, and BFS
// and DFS under symmetry, reporting generated states per CPU-second.
func BenchmarkSearchModes(b *testing.B) {
	m, _ := New(8)
	for _, c := range []struct {
		name string
		opt  checker.Options
	}{
		{"dfs", checker.Options{Mode: checker.DepthFirst}},
		{"dfs-lassos", checker.Options{Mode: checker.DepthFirst, Lassos: true}},
		{"bfs-symmetry", checker.Options{Symmetry: true}},
		{"dfs-symmetry", checker.Options{Mode: checker.DepthFirst, Symmetry: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var gen, states int64
			var cpu float64
			for b.Loop() {
				c0 := cpuSeconds()
				r := checker.Search[State](m, c.opt)
				cpu += cpuSeconds() - c0
				if !r.Complete {
					b.Fatalf("incomplete: %s %v", r.Stop, r.Err)
				}
				gen += r.Transitions
				states = r.States
			}
			b.ReportMetric(float64(gen)/cpu, "generated/cpu-s")
			b.ReportMetric(float64(states), "states")
		})
	}
}
