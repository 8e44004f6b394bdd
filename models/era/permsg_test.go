package era

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// msgCase is one configuration of the per-process message measurement.
type msgCase struct {
	name     string // the --topology flag
	nodeSize int
	crashes  func(n int) int // crash budget at N
	prob     func(n int) float64
	fail     func(n int) []core.Rank
}

func (c msgCase) params(n int) Params {
	t, err := erasm.ParseTree(c.name, c.nodeSize)
	if err != nil {
		panic(err)
	}
	p := Params{N: n, Agreements: 1, Values: 2, Op: erasm.And, Topology: t.X, Intra: t.Y, NodeSize: t.NodeSize}
	if c.crashes != nil {
		p.Crashes = c.crashes(n)
	}
	if c.prob != nil {
		p.CrashProb = c.prob(n)
	}
	if c.fail != nil {
		p.Fail = c.fail(n)
	}
	return p
}

// flags is the `ftcheck simulate era` command line of c at n.
func (c msgCase) flags(n, walks int) string {
	p := c.params(n)
	s := fmt.Sprintf("--n %d --topology %s", n, c.name)
	if c.nodeSize > 0 {
		s += fmt.Sprintf(" --node-size %d", c.nodeSize)
	}
	if p.Crashes > 0 {
		s += fmt.Sprintf(" --crashes %d", p.Crashes)
	}
	if len(p.Fail) > 0 {
		s += " --fail " + ranksString(p.Fail)
	}
	if p.CrashProb > 0 {
		s += fmt.Sprintf(" --crash-prob %g", p.CrashProb)
	}
	return s + fmt.Sprintf(" --walks %d --seed 1", walks)
}

func measure(t *testing.T, c msgCase, n, walks int) MessageRun {
	t.Helper()
	p := c.params(n)
	// Each crash costs up to N detections: room for all of them.
	r, err := MessagesPerProcess(p, walks, 1, 200*n+(p.Crashes+len(p.Fail)+1)*n*4)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Holds || r.Quiescent != r.Walks {
		t.Fatalf("%s: properties hold %v, %d of %d walks quiescent", c.flags(n, walks), r.Holds, r.Quiescent, r.Walks)
	}
	return r
}

var (
	fewCrashes  = func(int) int { return 3 }
	manyCrashes = func(n int) int { return max(4, n/64) }
	beforeStart = func(int) float64 { return 1 } // every crash before any other step
)

// atRandom spreads f crashes over the agreement: a step is a crash with
// probability f/(2N) while the budget lasts (an agreement takes about 3N
// steps before the detections).
func atRandom(f func(int) int) func(int) float64 {
	return func(n int) float64 { return float64(f(n)) / float64(2*n) }
}

// TestMessagesPerProcessBinary pins the binary tree's count: failure-free,
// an inner process receives 2 UP, sends 1 UP, receives 1 DOWN and sends 2
// DOWN, so the largest count is 6 at every N and the mean 4(N−1)/N; with
// F = 3 crashes before the start it stays within 6 + 4F at every N (a
// mended parent adopts at most F+1 more children, each costing an UP, a
// DOWN and at most a RESULTREQUEST and a second UP). A regression that sent
// more per process (a broadcast from the root, UP re-sent on every step, a
// tree built as a star) fails here.
func TestMessagesPerProcessBinary(t *testing.T) {
	ns := []int{16, 64, 256, 512}
	var maxes []float64
	for _, n := range ns {
		r := measure(t, msgCase{name: "binary"}, n, 3)
		if r.Max != 6 || math.Abs(r.Mean-4*float64(n-1)/float64(n)) > 1e-9 {
			t.Errorf("binary N=%d failure-free: max %v (want 6), mean %v (want 4(N−1)/N = %v)", n, r.Max, r.Mean, 4*float64(n-1)/float64(n))
		}
		maxes = append(maxes, r.Max)
		c := msgCase{name: "binary", crashes: fewCrashes, prob: beforeStart}
		rc := measure(t, c, n, 5)
		if rc.Max > 6+4*3 {
			t.Errorf("%s: max %v, want ≤ 6 + 4F = 18", c.flags(n, 5), rc.Max)
		}
		t.Logf("%s: max %v (p%d), mean %.3f", c.flags(n, 5), rc.Max, rc.MaxRank, rc.Mean)
		if rc.Mean > 4.1 {
			t.Errorf("%s: mean %v, want ≤ 4.1", c.flags(n, 5), rc.Mean)
		}
	}
	if f := FitLine(Log2s(ns), maxes); f.Beta != 0 {
		t.Errorf("binary failure-free max against log2 N: %v, want slope 0", f)
	}
}

// TestMessagesPerProcessStar pins the star: the root sends and receives
// N−1 UP and N−1 DOWN, 2(N−1), a line in N of slope 2 — the linear end the
// paper's "deteriorate quickly to a star" warns of.
func TestMessagesPerProcessStar(t *testing.T) {
	ns := []int{16, 64, 256, 512}
	var maxes []float64
	for _, n := range ns {
		r := measure(t, msgCase{name: "star"}, n, 2)
		if r.Max != float64(2*(n-1)) || r.MaxRank != 0 {
			t.Errorf("star N=%d: max %v at p%d, want 2(N−1) = %d at p0", n, r.Max, r.MaxRank, 2*(n-1))
		}
		maxes = append(maxes, r.Max)
	}
	if f := FitLine(Floats(ns), maxes); math.Abs(f.Beta-2) > 1e-9 || f.R2 < 1-1e-9 {
		t.Errorf("star max against N: %v, want slope 2, R² 1", f)
	}
}

// TestMessagesPerProcessDegraded: the binary tree with its top k levels
// below the root dead before the start (ranks 1 … 2^k−1) is mended into a
// star of 2^k children around p0. Each child costs p0 at least an UP and a
// DOWN, and at most also one RESULTREQUEST per dead ancestor p0 learns of
// (Part 4's second rule: p0, gathering, asks the children of a child it
// marks dead) and one answer to each, so p0's count lies in
// [2·2^k, (2k+2)·2^k + 8]; it grows linearly in the F = 2^k−1 crashes, at
// a fixed N, with a slope of at least 2 (about 4 measured); with as many
// crashes at random ranks the largest count stays small. The tree degrades
// towards a star when the crashes are at its top.
func TestMessagesPerProcessDegraded(t *testing.T) {
	const n = 512
	var fs, maxes []float64
	for k := 1; k <= 6; k++ {
		top := 1<<k - 1
		c := msgCase{name: "binary", prob: beforeStart, fail: func(int) []core.Rank {
			out := make([]core.Rank, top)
			for i := range out {
				out[i] = core.Rank(i + 1)
			}
			return out
		}}
		r := measure(t, c, n, 2)
		if lo, hi := 2<<k, (2*k+2)<<k+8; r.Max < float64(lo) || r.Max > float64(hi) {
			t.Errorf("%s: max %v, want within [2·2^k, (2k+2)·2^k + 8] = [%d, %d]", c.flags(n, 2), r.Max, lo, hi)
		}
		if r.MaxRank != 0 {
			t.Errorf("%s: the busiest rank is p%d, want the root p0", c.flags(n, 2), r.MaxRank)
		}
		t.Logf("%s: max %v (p%d), mean %.3f", c.flags(n, 2), r.Max, r.MaxRank, r.Mean)
		fs = append(fs, float64(top))
		maxes = append(maxes, r.Max)
		if k == 6 {
			spread := msgCase{name: "binary", crashes: func(int) int { return top }, prob: beforeStart}
			rs := measure(t, spread, n, 2)
			t.Logf("%s: max %v (p%d), mean %.3f", spread.flags(n, 2), rs.Max, rs.MaxRank, rs.Mean)
			if rs.Max*4 > r.Max {
				t.Errorf("%s: max %v; want well below the top-of-tree crashes' %v", spread.flags(n, 2), rs.Max, r.Max)
			}
		}
	}
	f := FitLine(fs, maxes)
	t.Logf("root's count against F: %v", f)
	if f.Beta < 2 || f.R2 < 0.99 {
		t.Errorf("binary N=%d, top of the tree dead: root's count against F = %v: %v, want a line of slope ≥ 2, R² ≥ 0.99", n, fs, f)
	}
}

// TestSimulatePerProcessFigures: `ftcheck simulate era` reports the same
// per-process figures as MessagesPerProcess (the star's root: 2(N−1)).
func TestSimulatePerProcessFigures(t *testing.T) {
	p, err := registry.Lookup("era")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--n", "64", "--topology", "star", "--walks", "2"},
		{"--n", "256", "--crashes", "8", "--crash-prob", "1", "--walks", "4"},
	} {
		fs := newTestFlagSet()
		run := p.Simulate(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		rep, err := run(context.Background(), func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		c := msgCase{name: fs.Lookup("topology").Value.String()}
		n := 64
		if args[1] == "256" {
			n = 256
			c.crashes, c.prob = func(int) int { return 8 }, beforeStart
		}
		want, err := MessagesPerProcess(c.params(n), 2+2*(n/256), 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Figures["max_messages_per_process"]; got != want.Max {
			t.Errorf("%v: max_messages_per_process %v, MessagesPerProcess %v", args, got, want.Max)
		}
		if got, _ := rep.Figures["mean_messages_per_process"].(float64); math.Abs(got-want.Mean) > 1e-9 {
			t.Errorf("%v: mean_messages_per_process %v, MessagesPerProcess %v", args, got, want.Mean)
		}
		if n == 64 && want.Max != 126 {
			t.Errorf("star N=64: max %v, want 126", want.Max)
		}
	}
}

// TestMessagesPerProcessTable prints docs/era.md's table of messages per
// process, per topology, N = 16 … 6000 and crashes (about ten minutes of
// CPU), row by row; ERA_MSGS_TOPOLOGIES (e.g. "bin/bin,bin/star") selects
// topologies, and "none" only the top-of-tree sweep:
// ERA_MSGS_TABLE=1 go test ./models/era -run TestMessagesPerProcessTable -v
func TestMessagesPerProcessTable(t *testing.T) {
	if os.Getenv("ERA_MSGS_TABLE") == "" {
		t.Skip("ERA_MSGS_TABLE=1 prints the table (a few minutes)")
	}
	ns := []int{16, 64, 256, 1024, 6000}
	walks := func(n int) int {
		switch {
		case n <= 256:
			return 10
		case n <= 1024:
			return 3
		}
		return 2
	}
	topos := []msgCase{{name: "binary"}, {name: "string"}, {name: "star"},
		{name: "bin/bin", nodeSize: 16}, {name: "bin/star", nodeSize: 16}, {name: "star/bin", nodeSize: 16}}
	if sel := os.Getenv("ERA_MSGS_TOPOLOGIES"); sel != "" {
		var keep []msgCase
		for _, c := range topos {
			if strings.Contains(","+sel+",", ","+c.name+",") {
				keep = append(keep, c)
			}
		}
		topos = keep
	}
	type crash struct {
		label   string
		crashes func(int) int
		prob    func(int) float64
	}
	crashes := []crash{{"0", nil, nil},
		{"3, before the start", fewCrashes, beforeStart}, {"≤ 3, at random times", fewCrashes, atRandom(fewCrashes)},
		{"max(4, N/64), before the start", manyCrashes, beforeStart}, {"≤ max(4, N/64), at random times", manyCrashes, atRandom(manyCrashes)}}
	var b strings.Builder
	flush := func() { fmt.Print(b.String()); b.Reset() }
	fmt.Fprintf(&b, "| topology | crashes |")
	for _, n := range ns {
		fmt.Fprintf(&b, " N=%d |", n)
	}
	b.WriteString(" max against log2 N | max against N | max/log2 N at 6000 |\n|---|---|")
	for range ns {
		b.WriteString("---|")
	}
	b.WriteString("---|---|---|\n")
	for _, tc := range topos {
		for _, cr := range crashes {
			c := tc
			c.crashes, c.prob = cr.crashes, cr.prob
			name := c.name
			if c.nodeSize > 0 {
				name += fmt.Sprintf(" (node size %d)", c.nodeSize)
			}
			fmt.Fprintf(&b, "| %s | %s |", name, cr.label)
			var maxes []float64
			for _, n := range ns {
				r := measure(t, c, n, walks(n))
				maxes = append(maxes, r.Max)
				if cr.crashes == nil {
					fmt.Fprintf(&b, " %g / %.2f |", r.Max, r.Mean)
				} else {
					fmt.Fprintf(&b, " %g / %.2f (%.3g) |", r.Max, r.Mean, r.Crashed)
				}
				t.Logf("%s: max %g (p%d), mean of maxima %.2f, mean %.3f, %.3g crashed per walk, %d steps", c.flags(n, walks(n)), r.Max, r.MaxRank, r.MeanMax, r.Mean, r.Crashed, r.Steps)
			}
			fl, fn := FitLine(Log2s(ns), maxes), FitLine(Floats(ns), maxes)
			fmt.Fprintf(&b, " %.2f + %.2f·log2 N (R² %.2f) | %.3g + %.3g·N (R² %.2f) | %.2f |\n",
				fl.Alpha, fl.Beta, fl.R2, fn.Alpha, fn.Beta, fn.R2, maxes[len(maxes)-1]/math.Log2(6000))
			flush()
		}
	}
	// The top of the binary tree dead before the start.
	const n = 1024
	b.WriteString("\n| `--fail` (binary, N = 1024, `--crash-prob 1`) | F | max (busiest rank) | mean |\n|---|---|---|---|\n")
	for k := 1; k <= 8; k++ {
		top := 1<<k - 1
		c := msgCase{name: "binary", prob: beforeStart, fail: func(int) []core.Rank {
			out := make([]core.Rank, top)
			for i := range out {
				out[i] = core.Rank(i + 1)
			}
			return out
		}}
		r := measure(t, c, n, 2)
		t.Logf("%s: max %g (p%d), mean %.3f, %d steps", c.flags(n, 2), r.Max, r.MaxRank, r.Mean, r.Steps)
		fmt.Fprintf(&b, "| %s | %d | %g (p%d) | %.2f |\n", ranksString(c.fail(n)), top, r.Max, r.MaxRank, r.Mean)
	}
	fmt.Print(b.String())
}
