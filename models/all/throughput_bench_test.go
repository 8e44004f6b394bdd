package all

import (
	"os"
	"strconv"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// BenchmarkThroughput runs TwoPhase RM=8 and ERA N=4 with 3 crashes in one
// process, each one complete search per iteration on one worker (so the
// figures compare the per-state cost, not the scheduler), first both by
// BFS (sub-benchmarks bfs/...) and then both by DFS (dfs/...; DFS runs
// one worker anyway and reads no compact frontier), and reports each
// one's generated states per second; the ERA sub-benchmark also reports
// twophase/era, the ratio of TwoPhase's generated/s (measured just before
// in the same run) to ERA's (docs/performance.md). Only
// ratios are meaningful on a shared machine. Each also reports
// generated/cpu-s, generated states per second of the CPU time the
// process used during its searches (every thread, the garbage collector's
// included; 0 where the platform has no getrusage), and the ERA one
// twophase/era-cpu, the same ratio on that basis: on a machine shared with
// other loads, wall time depends on what else runs, CPU time much less.
//
// FTK_THROUGHPUT_MAX_STATES, when set, bounds the ERA search to that many
// distinct states (Options.MaxStates) for a quicker, partial measurement
// (by BFS and by DFS, which then explore different states).
//
//	go test ./models/all -run XXX -bench Throughput -benchtime 1x
func BenchmarkThroughput(b *testing.B) {
	maxStates := int64(0)
	if s := os.Getenv("FTK_THROUGHPUT_MAX_STATES"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			b.Fatalf("FTK_THROUGHPUT_MAX_STATES: %v", err)
		}
		maxStates = n
	}
	for _, mode := range []checker.Mode{checker.BreadthFirst, checker.DepthFirst} {
		var twoPhase, twoPhaseCPU float64
		b.Run(mode.String()+"/twophase/RM=8", func(b *testing.B) {
			twoPhase, twoPhaseCPU = benchGenerated(b, checker.Options{Workers: 1, Mode: mode}, "twophase", "--rm", "8")
		})
		b.Run(mode.String()+"/era/N=4/crashes=3", func(b *testing.B) {
			opt := checker.Options{Workers: 1, Mode: mode, MaxStates: maxStates}
			era, eraCPU := benchGenerated(b, opt, "era", "--n", "4", "--crashes", "3")
			if twoPhase > 0 && era > 0 {
				b.ReportMetric(twoPhase/era, "twophase/era")
			}
			if twoPhaseCPU > 0 && eraCPU > 0 {
				b.ReportMetric(twoPhaseCPU/eraCPU, "twophase/era-cpu")
			}
		})
	}
}

// benchGenerated builds the named model from its ftcheck flags, runs the
// search opt.Mode names with opt once per iteration, fails on an error or a violation, and
// returns (and reports) generated states per second of wall time and of
// the process's CPU time (0 when cpuTime is unavailable).
func benchGenerated(b *testing.B, opt checker.Options, name string, args ...string) (float64, float64) {
	b.Helper()
	r := modeltest.Build(b, name, args...)
	var gen, states int64
	var secs, cpu float64
	var res *checker.Result
	for b.Loop() {
		c0 := cpuTime()
		res = r.BFS(opt)
		cpu += cpuTime() - c0
		if res.Err != nil || len(res.Violations) > 0 || (opt.MaxStates == 0 && !res.Complete) {
			b.Fatalf("%s %v: err=%v complete=%v violations=%d", name, opt.Mode, res.Err, res.Complete, len(res.Violations))
		}
		gen += res.Transitions
		states += res.States
		secs += res.Seconds
	}
	rate := float64(gen) / secs
	b.ReportMetric(rate, "generated/s")
	b.ReportMetric(float64(states)/secs, "distinct/s")
	b.ReportMetric(float64(res.States), "states")
	b.ReportMetric(res.BytesPerState(), "bytes/state")
	var cpuRate float64
	if cpu > 0 {
		cpuRate = float64(gen) / cpu
		b.ReportMetric(cpuRate, "generated/cpu-s")
	}
	return rate, cpuRate
}
