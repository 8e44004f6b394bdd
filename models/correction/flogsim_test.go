package correction

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker/logp"
	"github.com/ftkernel/ftkernel/core"
	sm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// flogsimTable, when set, is the file TestFlogsimComparison writes its
// table to (docs/correction-flogsim.md quotes it):
//
//	go test ./models/correction -run TestFlogsimComparison -flogsim-table /tmp/flogsim.md
var flogsimTable = flag.String("flogsim-table", "", "write TestFlogsimComparison's markdown table to this file")

// flogRules is one set of rules for checked correction: the paper's, or
// the authors' simulator flogsim's as read in docs/correction-flogsim.md.
type flogRules struct {
	name       string
	start      sm.StartMode
	early      sm.EarlyRule
	cover, cut bool
	// joins: a process colored by a correction message during its tree
	// phase sends its tree messages and takes part in correction
	// (flogsim's DONE_FORWARD path), which is our MutantColoredSends.
	joins bool
	// flogStart: the synchronized start is flogsim's binomial deadline
	// (flogBinomialDeadline) instead of the fault-free dissemination
	// time, on the binomial tree.
	flogStart bool
}

var flogRuleSets = []flogRules{
	{name: "paper", start: sm.Synchronized},
	{name: "flogsim phased (cover, wraps)", start: sm.Synchronized, cover: true, flogStart: true},
	{name: "flogsim phased (cover, cut)", start: sm.Synchronized, cover: true, cut: true, flogStart: true},
	{name: "paper, forwards", start: sm.Overlapped},
	{name: "paper, silent", start: sm.Overlapped, early: sm.EarlySilent},
	{name: "flogsim (cover, cut, joins)", start: sm.Overlapped, cover: true, cut: true, joins: true},
	{name: "flogsim exit (cover, cut)", start: sm.Overlapped, cover: true, cut: true},
}

// flogBinomialDeadline is the length of flogsim's tree phase on its
// binomial tree (the Exclusive phase of its phased variants): T(1) = 0,
// T(P) = max(max(o,g) + L + o + T(⌊P/2⌋), max(o,g) + T(⌈P/2⌉)), a bound on
// the dissemination time written as a recursion over the two halves.
func flogBinomialDeadline(L, o, g int64, P int) int64 {
	if P <= 1 {
		return 0
	}
	s := max(o, g)
	return max(s+L+o+flogBinomialDeadline(L, o, g, P/2), s+flogBinomialDeadline(L, o, g, (P+1)/2))
}

// flogFaults are the explicit fault sets of the comparison with flogsim:
// none, four adjacent ranks in the middle, the root's children, and the
// whole subtree of the root's second child.
func flogFaults(top *sm.Topology) []struct {
	name string
	set  core.RankSet
} {
	P := top.P()
	var adj, kids, sub core.RankSet
	for r := P / 2; r < P/2+4 && r < P; r++ {
		adj.Add(core.Rank(r))
	}
	for _, c := range top.Children(0) {
		kids.Add(c)
	}
	if cs := top.Children(0); len(cs) > 1 {
		stack := []core.Rank{cs[1]}
		for len(stack) > 0 {
			r := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			sub.Add(r)
			stack = append(stack, top.Children(r)...)
		}
	}
	return []struct {
		name string
		set  core.RankSet
	}{{"none", core.RankSet{}}, {"adjacent", adj}, {"root's children", kids}, {"subtree", sub}}
}

// flogRun is one LogP run of checked correction under rules ru.
func flogRun(t *testing.T, top *sm.Topology, ru flogRules, L, o int64, overlap bool, faults core.RankSet) (*logp.Result, []core.Machine, int64) {
	t.Helper()
	cfg := &sm.Config{Topology: top, Correction: sm.Checked, Start: ru.start, Early: ru.early, CoverStop: ru.cover, NoOverRoot: ru.cut}
	if ru.joins {
		cfg.Mutant = sm.MutantColoredSends
	}
	opt := logp.Options{L: L, O: o, G: o, SendSlotTimer: sm.TimerSendSlot,
		Calls:           []logp.Call{{At: 0, Proc: 0, Input: sm.Broadcast{Value: 42}}},
		CorrectionKinds: []string{sm.KindCorrection}, DisseminationKinds: []string{sm.KindTree}}
	if !overlap {
		opt.Overlap = logp.Off
	}
	var syncAt int64
	if ru.start == sm.Synchronized {
		syncAt = flogDissemination(t, top, opt)
		if ru.flogStart && top.Tree().Kind == sm.BinomialInterleaved {
			syncAt = flogBinomialDeadline(L, o, o, top.P())
		}
		opt.Wakeups = []logp.Wakeup{{At: syncAt, Timer: sm.TimerStart}}
	}
	sim, err := logp.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := sm.Nodes(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(nodes, faults)
	if err != nil {
		t.Fatal(err)
	}
	return res, nodes, syncAt
}

// flogDissemination is the fault-free tree's quiescence time, our
// synchronized start (as NewCorrSim finds it).
func flogDissemination(t *testing.T, top *sm.Topology, opt logp.Options) int64 {
	t.Helper()
	sim, err := logp.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := sm.Nodes(&sm.Config{Topology: top})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(nodes, core.RankSet{})
	if err != nil {
		t.Fatal(err)
	}
	return res.QuiescenceLatency
}

// TestFlogsimComparison runs checked correction under the paper's rules
// and under flogsim's (cover stop, cut ring, flogsim's phased deadline,
// correction-colored processes joining) on the binomial, in-order
// binomial and Lamé trees, P = 16 … 1024, explicit fault sets, LogP
// (L, o) = (2, 1) and (3, 2) (o ∤ L), both values of flogsim's
// parallelism (1: one CPU thread, our Overlap off; 2: a send and a receive
// overhead may overlap, our default). Every rule set must color every live
// process, without duplicates and within each process's send bound: that
// is checked correction's guarantee (§3.1), whatever the stop rule or the
// ring. With -flogsim-table it writes the figures as markdown.
func TestFlogsimComparison(t *testing.T) {
	var b strings.Builder
	type cell struct {
		unc     int
		msgs    int64
		latency int64
	}
	diffUnc, diffMsg, rows := 0, 0, 0
	for _, lo := range [][2]int64{{3, 2}, {2, 1}} {
		L, o := lo[0], lo[1]
		for _, overlap := range []bool{true, false} {
			par := 2
			if !overlap {
				par = 1
			}
			fmt.Fprintf(&b, "\n### L=%d, o=%d, g=o, parallelism %d\n\n", L, o, par)
			fmt.Fprintf(&b, "Cells: uncolored / messages / coloring latency.\n\n")
			for _, start := range []sm.StartMode{sm.Synchronized, sm.Overlapped} {
				var sets []flogRules
				for _, ru := range flogRuleSets {
					if ru.start == start {
						sets = append(sets, ru)
					}
				}
				fmt.Fprintf(&b, "| %v | tree | P | failed |", start)
				if start == sm.Synchronized {
					fmt.Fprintf(&b, " start ours / flogsim |")
				}
				for _, ru := range sets {
					fmt.Fprintf(&b, " %s |", ru.name)
				}
				b.WriteString("\n|---|---|---|---|")
				if start == sm.Synchronized {
					b.WriteString("---|")
				}
				b.WriteString(strings.Repeat("---|", len(sets)) + "\n")
				for _, tk := range []sm.TreeKind{sm.BinomialInterleaved, sm.BinomialInOrder, sm.Lame} {
					for _, P := range []int{16, 64, 256, 1024} {
						top, err := sm.NewTopology(sm.Tree{Kind: tk, K: 2}, P)
						if err != nil {
							t.Fatal(err)
						}
						for _, fs := range flogFaults(top) {
							fmt.Fprintf(&b, "| | %v | %d | %s (%d) |", tk, P, fs.name, fs.set.Len())
							var cells []cell
							var starts [2]int64
							for i, ru := range sets {
								res, nodes, syncAt := flogRun(t, top, ru, L, o, overlap, fs.set)
								if i < 2 {
									starts[i] = syncAt
								}
								if res.Uncolored != 0 || res.Duplicates != 0 {
									t.Errorf("%s, %v P=%d L=%d o=%d parallelism %d, failed %v: %d uncolored, %d duplicates",
										ru.name, tk, P, L, o, par, fs.set, res.Uncolored, res.Duplicates)
								}
								for r, n := range nodes {
									if bound := n.(*sm.Node).SendBound(); int(res.SentPerProc[r]) > bound {
										t.Errorf("%s, %v P=%d failed %v: p%d sent %d > bound %d", ru.name, tk, P, fs.set, r, res.SentPerProc[r], bound)
									}
								}
								cells = append(cells, cell{res.Uncolored, res.Messages, res.ColoringLatency})
							}
							switch {
							case start != sm.Synchronized:
							case tk == sm.BinomialInterleaved:
								fmt.Fprintf(&b, " %d / %d |", starts[0], starts[1])
							default:
								fmt.Fprintf(&b, " %d / (ours) |", starts[0])
							}
							for _, c := range cells {
								fmt.Fprintf(&b, " %d / %d / %d |", c.unc, c.msgs, c.latency)
								if c.unc != cells[0].unc {
									diffUnc++
								}
								if c.msgs != cells[0].msgs {
									diffMsg++
								}
							}
							rows++
							b.WriteString("\n")
						}
					}
				}
				b.WriteString("\n")
			}
		}
	}
	b.WriteString(flogRuleByRule(t))
	t.Logf("%d rows; cells whose uncolored count differs from the row's first rule set: %d; whose message count differs: %d", rows, diffUnc, diffMsg)
	if *flogsimTable != "" {
		if err := os.WriteFile(*flogsimTable, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// flogSingleRules changes one rule of the paper's at a time, for the
// rule-by-rule summary: each is compared with the paper's rules at the
// same start (overlapped: EarlyForwards).
var flogSingleRules = []struct {
	name string
	ru   flogRules
}{
	{"cover stop (synchronized)", flogRules{start: sm.Synchronized, cover: true}},
	{"cut ring (synchronized)", flogRules{start: sm.Synchronized, cut: true}},
	{"flogsim's deadline as the start (synchronized, binomial only)", flogRules{start: sm.Synchronized, flogStart: true}},
	{"cover stop (overlapped)", flogRules{start: sm.Overlapped, cover: true}},
	{"cut ring (overlapped)", flogRules{start: sm.Overlapped, cut: true}},
	{"correction-colored join (overlapped)", flogRules{start: sm.Overlapped, joins: true}},
	{"early silent (overlapped, the issue's reading)", flogRules{start: sm.Overlapped, early: sm.EarlySilent}},
}

// flogRuleByRule runs every single-rule change against the paper's rules
// over the whole grid of TestFlogsimComparison and sums up: runs, messages
// (total, and runs with more or fewer), coloring latency (runs higher or
// lower, largest change), uncolored processes. It fails t if a rule leaves
// a live process uncolored.
func flogRuleByRule(t *testing.T) string {
	var b strings.Builder
	b.WriteString("\n### Rule by rule: one change against the paper's rules, over the whole grid\n\n")
	b.WriteString("Grid: (L, o) ∈ {(3, 2), (2, 1)}, parallelism 1 and 2, binomial, in-order binomial and Lamé trees, P = 16, 64, 256, 1024, the four fault sets.\n\n")
	b.WriteString("| rule | runs | messages paper → rule | runs with more / fewer messages | runs with higher / lower coloring latency | largest latency change | uncolored |\n|---|---|---|---|---|---|---|\n")
	for _, sr := range flogSingleRules {
		paper := flogRules{start: sr.ru.start}
		var runs, more, fewer, slower, faster, unc int
		var mp, mr, worst int64
		for _, lo := range [][2]int64{{3, 2}, {2, 1}} {
			for _, overlap := range []bool{true, false} {
				for _, tk := range []sm.TreeKind{sm.BinomialInterleaved, sm.BinomialInOrder, sm.Lame} {
					if sr.ru.flogStart && tk != sm.BinomialInterleaved {
						continue
					}
					for _, P := range []int{16, 64, 256, 1024} {
						top, err := sm.NewTopology(sm.Tree{Kind: tk, K: 2}, P)
						if err != nil {
							t.Fatal(err)
						}
						for _, fs := range flogFaults(top) {
							a, _, _ := flogRun(t, top, paper, lo[0], lo[1], overlap, fs.set)
							ma, la := a.Messages, a.ColoringLatency
							r, _, _ := flogRun(t, top, sr.ru, lo[0], lo[1], overlap, fs.set)
							runs++
							mp += ma
							mr += r.Messages
							unc += r.Uncolored
							switch {
							case r.Messages > ma:
								more++
							case r.Messages < ma:
								fewer++
							}
							switch {
							case r.ColoringLatency > la:
								slower++
							case r.ColoringLatency < la:
								faster++
							}
							if d := r.ColoringLatency - la; d*d > worst*worst {
								worst = d
							}
							if r.Uncolored > 0 {
								t.Errorf("%s: %v P=%d L=%d o=%d overlap=%t failed %v: %d uncolored", sr.name, tk, P, lo[0], lo[1], overlap, fs.set, r.Uncolored)
							}
						}
					}
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d → %d | %d / %d | %d / %d | %+d | %d |\n", sr.name, runs, mp, mr, more, fewer, slower, faster, worst, unc)
	}
	return b.String()
}
