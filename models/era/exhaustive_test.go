package era

import (
	"os"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
)

// exhaustiveRows is the exhaustive suite of correct ERA (issue 10 §3,
// "exhaustive bounds follow the protocol's range"): every topology (flat
// binary, star and string; X/Y trees bin/star, bin/bin and star/string at
// node sizes 2 and 3), both networks, garbage collection on and off, the
// and and ulfm operations, N = 1 … 4 with the crashes that fit, two
// concurrent agreements, and Tree Rebalancing between two agreements. Each
// search must complete with every property holding, at exactly the pinned
// counts (measured with ftcheck check era ARGS --json; depth is not pinned
// for depth-first rows). long rows run with FTKERNEL_LONG=1 only.
//
// Bounds: the whole default table takes about a minute on two cores;
// star at N = 4 with 2 crashes is the row that catches a root accepting
// DOWN from a dead former parent (agreement, 17 steps). X/Y trees stop at
// one crash at N = 4: with two, correct ERA breaks agreement (see
// TestXYTwoCrashesFinding).
var exhaustiveRows = []struct {
	args                string
	dfs, long           bool
	states, transitions int64
	depth               int
}{
	{args: "--n 1 --crashes 0", states: 4, transitions: 4, depth: 1},
	{args: "--n 2 --crashes 1", states: 149, transitions: 216, depth: 6},
	{args: "--n 2 --crashes 1 --agreements 2", states: 3348, transitions: 5568, depth: 10},
	{args: "--n 2 --crashes 1 --op ulfm --values 1 --rebalance --blocking --agreements 2 --topology star", states: 101, transitions: 133, depth: 10},
	{args: "--n 3 --crashes 2 --topology star", states: 18262, transitions: 39705, depth: 15},
	{args: "--n 3 --crashes 2 --topology string --gc", states: 12559, transitions: 26852, depth: 14},
	{args: "--n 3 --crashes 2 --topology star --network fifo", states: 17876, transitions: 38589, depth: 15},
	{args: "--n 3 --crashes 2 --network fifo --gc", states: 12368, transitions: 26332, depth: 14},
	{args: "--n 3 --crashes 2 --topology bin/star --node-size 2", states: 18262, transitions: 39705, depth: 15},
	{args: "--n 3 --crashes 2 --topology bin/bin --node-size 2 --network fifo --gc", states: 16892, transitions: 37453, depth: 15},
	{args: "--n 3 --crashes 2 --agreements 2 --values 1", states: 56234, transitions: 157271, depth: 22},
	{args: "--n 3 --crashes 1 --agreements 2 --values 1 --topology star", states: 79077, transitions: 265236, depth: 25},
	{args: "--n 3 --crashes 2 --op ulfm --values 1", states: 2939, transitions: 5113, depth: 13},
	{args: "--n 3 --crashes 2 --op ulfm --values 1 --rebalance --blocking --agreements 2", states: 11432, transitions: 20451, depth: 20},
	{args: "--n 3 --crashes 2 --op ulfm --values 1 --rebalance --blocking --agreements 2 --gc", states: 10350, transitions: 18951, depth: 20},
	{args: "--n 4 --crashes 1 --topology bin/star --node-size 2", states: 58224, transitions: 170192, depth: 18},
	{args: "--n 4 --crashes 1 --topology star/string --node-size 3", states: 74368, transitions: 220768, depth: 20},
	{args: "--n 4 --crashes 1 --topology bin/star --node-size 3", states: 237616, transitions: 782880, depth: 22},
	{args: "--n 4 --crashes 1 --topology star --network fifo", states: 212848, transitions: 688512, depth: 22},
	{args: "--n 4 --crashes 1 --op ulfm --values 1", states: 9553, transitions: 23951, depth: 19},
	{args: "--n 4 --crashes 1 --op ulfm --values 1 --topology star --network fifo --gc", states: 19630, transitions: 57527, depth: 21},
	{args: "--n 4 --crashes 1 --op ulfm --values 1 --rebalance --blocking --agreements 2 --topology bin/bin --node-size 2", states: 41531, transitions: 121718, depth: 28},
	{args: "--n 4 --crashes 2 --topology string", states: 605314, transitions: 1672181, depth: 21},
	{args: "--n 4 --crashes 2 --topology star", dfs: true, states: 3826544, transitions: 13056928},

	{args: "--n 4 --crashes 2", long: true, states: 1434517, transitions: 4350040, depth: 24},
	{args: "--n 4 --crashes 3", long: true, dfs: true, states: 4365061, transitions: 12793999},
	{args: "--n 3 --crashes 2 --agreements 2", long: true, dfs: true, states: 3681758, transitions: 10173124},
	{args: "--n 4 --crashes 1 --topology bin/bin --node-size 2 --agreements 2 --values 1", long: true, states: 712661, transitions: 3017237, depth: 32},
	{args: "--n 4 --crashes 2 --op ulfm --values 1 --rebalance --blocking --agreements 2", long: true, dfs: true, states: 1908130, transitions: 5726185},
}

// TestExhaustiveTable runs exhaustiveRows.
func TestExhaustiveTable(t *testing.T) {
	long := os.Getenv("FTKERNEL_LONG") == "1"
	for _, row := range exhaustiveRows {
		t.Run(row.args, func(t *testing.T) {
			if row.long && !long {
				t.Skip("FTKERNEL_LONG=1 runs it")
			}
			if testing.Short() && row.states > 100000 {
				t.Skip("-short")
			}
			opt := checker.Options{}
			if row.dfs {
				opt.Mode = checker.DepthFirst
			}
			res := build(t, "era", strings.Fields(row.args)...).BFS(opt)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if !res.Complete || len(res.Violations) > 0 {
				t.Fatalf("complete=%v violations=%d (first: %v)", res.Complete, len(res.Violations), first(res.Violations))
			}
			if res.States != row.states || res.Transitions != row.transitions || !row.dfs && res.Depth != row.depth {
				t.Errorf("%d distinct, %d generated, depth %d; pinned %d, %d, %d",
					res.States, res.Transitions, res.Depth, row.states, row.transitions, row.depth)
			}
			t.Logf("%d distinct, %d generated, depth %d, %.1fs", res.States, res.Transitions, res.Depth, res.Seconds)
		})
	}
}

// TestXYTwoCrashesFinding pins a finding: with two crashes at N = 4 on
// the bin/bin tree of node size 2 (p0 ← p1, p0 ← p2 ← p3), correct ERA
// breaks agreement in 15 steps. p0 decides 0 and p2 forwards it to p3;
// p0 and p2 die; the new root p1 asks p3 (Part 4's second rule), p3
// answers UP and p1 decides 1; then p3 accepts p2's DOWN, since
// RESULTREQUEST from p1 marks only p0 dead and p2 is still p3's parent.
// p2 had been adopted by p1 as an elder (Eld), not an initial ancestor,
// so p1 < p2 and the elders rule does not cover it. The flat binary tree
// shows the same run at N = 8 with p0, p1 and p3 crashed
// (statemachine/era/testdata/finding_orphaned_down.txt). When the
// protocol is fixed, this test fails: move the X/Y rows of
// exhaustiveRows to two crashes.
func TestXYTwoCrashesFinding(t *testing.T) {
	res := build(t, "era", "--n", "4", "--crashes", "2", "--topology", "bin/bin", "--node-size", "2").BFS(checker.Options{})
	if len(res.Violations) == 0 {
		t.Fatalf("no violation on %d states: the finding is gone (fixed?)", res.States)
	}
	tr := res.Violations[0]
	if tr.Violation.Property != Agreement || len(tr.Steps) != 15 {
		t.Fatalf("%s in %d steps, want agreement in 15:\n%s", tr.Violation.Property, len(tr.Steps), tr)
	}
}
