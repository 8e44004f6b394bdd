package era

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// twoAgreements crashes the ranks in dead, lets every survivor discover
// them, then runs agreement 0 and, once it returned everywhere, agreement 1
// (FIFO network), with MPIX_Comm_agree contributions made by AckAgree
// (each survivor acknowledges the failures it discovered).
func twoAgreements(t *testing.T, cfg Config, dead ...core.Rank) *sim {
	t.Helper()
	cfg.Op = ULFM
	s := newSim(cfg)
	s.ack = true
	for _, q := range dead {
		s.crash(q)
	}
	for _, e := range s.suspects {
		if !s.crashed[e.from] {
			if err := s.step(e.from, core.Suspect(e.to)); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.suspects = nil
	for a := range uint64(2) {
		for _, p := range s.alive() {
			s.call(p, a, NewContribution(1, core.RankSet{}, core.RankSet{}))
		}
		if err := s.runFIFO(); err != nil {
			t.Fatal(err)
		}
		if err := s.checkAgreement(a); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// depthIn is the height of agreement a's tree as the live nodes see it:
// the longest chain of ParentIn(a) links.
func depthIn(s *sim, a uint64) int {
	depth := 0
	for _, p := range s.alive() {
		d := 0
		for q := s.nodes[p].ParentIn(a); q != core.NoRank; q = s.nodes[q].ParentIn(a) {
			d++
		}
		depth = max(depth, d)
	}
	return depth
}

// parentsIn formats ParentIn(a) of every rank, "-" for a crashed one.
func parentsIn(s *sim, a uint64) string {
	out := make([]string, len(s.nodes))
	for p, n := range s.nodes {
		out[p] = "-"
		if !s.crashed[p] {
			out[p] = n.ParentIn(a).String()
		}
	}
	return fmt.Sprint(out)
}

// TestRebalancedTreeIsAFreshTree (§3, Tree Rebalancing): after p1, p2 and
// p3 fail, the mended binary tree of N = 8 is a star around p0 (depth 1,
// fan-out 4); agreement 0 agrees on the failures, and agreement 1 runs on a
// binary tree rebuilt over the 5 survivors: the depth of a fresh binary
// tree of 5 ranks. Without rebalancing agreement 1 keeps the star.
func TestRebalancedTreeIsAFreshTree(t *testing.T) {
	dead := []core.Rank{1, 2, 3}
	fresh := Tree{X: Binary}.Depth(core.RankSet{}, 5)
	if fresh != 3 {
		t.Fatalf("fresh binary tree of 5 ranks has depth %d, by hand 3 (0→1→2→4)", fresh)
	}
	s := twoAgreements(t, Config{N: 8, Rebalance: true}, dead...)
	if left, known := s.nodes[0].TreeIn(1); !known || !left.Equal(ranks(dead...)) {
		t.Fatalf("agreement 1's tree leaves out %v (known %v), want %v", left, known, ranks(dead...))
	}
	if got := depthIn(s, 1); got != fresh {
		t.Errorf("rebalanced agreement 1: depth %d, want %d (fresh tree over the survivors)", got, fresh)
	}
	if got := RebuiltDepth(Tree{X: Binary}, 8, ranks(dead...), core.RankSet{}); got != fresh {
		t.Errorf("RebuiltDepth = %d, want %d", got, fresh)
	}
	// Survivors in order 0 4 5 6 7 take positions 0 … 4: 4→0, 5→4, 6→4, 7→5.
	want(t, "rebalanced parents", parentsIn(s, 1), "[⊥ - - - p0 p4 p4 p5]")
	want(t, "agreement 0 parents", parentsIn(s, 0), "[⊥ - - - p0 p0 p0 p0]")

	s = twoAgreements(t, Config{N: 8}, dead...)
	if got := depthIn(s, 1); got != 1 {
		t.Errorf("without rebalancing: depth %d, want 1 (the star)", got)
	}
	want(t, "mended parents", parentsIn(s, 1), "[⊥ - - - p0 p0 p0 p0]")
}

// TestRebalancedHierarchicalTree: bin/bin, N = 8, node size 4, p1 and the
// representative p4 fail. Mended, p3 and p5 hang from p0. Rebuilt, node
// {p0,p2,p3} is a binary tree 2→0, 3→2, and node {p5,p6,p7} is represented
// by p5 (6→5, 7→6) under p0.
func TestRebalancedHierarchicalTree(t *testing.T) {
	cfg := Config{N: 8, Rebalance: true}.WithTree(Tree{X: Binary, Y: Binary, NodeSize: 4})
	s := twoAgreements(t, cfg, 1, 4)
	want(t, "agreement 0", parentsIn(s, 0), "[⊥ - p0 p0 - p0 p5 p5]")
	want(t, "agreement 1", parentsIn(s, 1), "[⊥ - p0 p2 - p0 p5 p6]")
	if got, want := depthIn(s, 1), RebuiltDepth(cfg.Tree(), 8, ranks(1, 4), core.RankSet{}); got != want || got != 3 {
		t.Errorf("depth %d, RebuiltDepth %d, by hand 3", got, want)
	}
}

// TestRebalanceNeedsULFMAndOrder: Rebalance needs the ULFM op, and a call
// of agreement a before a-1 is decided is an error that changes nothing.
func TestRebalanceNeedsULFMAndOrder(t *testing.T) {
	if _, err := New(0, Config{N: 4, Rebalance: true}); err == nil {
		t.Error("Rebalance with the AND op: no error")
	}
	n := newNode(t, 1, Config{N: 4, Op: ULFM, Rebalance: true})
	before := n.AppendBinary(nil)
	if _, err := n.Step(core.Call(Contribute{A: 1, V: NewContribution(1, core.RankSet{}, core.RankSet{})}), nil); err == nil {
		t.Error("Agreement(a=1) before a=0 decided: no error")
	}
	if string(n.AppendBinary(nil)) != string(before) {
		t.Error("the refused call changed the state")
	}
	// An UP of agreement 1 before the tree is known is absorbed and its
	// sender remembered.
	step(t, n, core.Receive(3, Up{1, NewContribution(1, core.RankSet{}, core.RankSet{})}))
	want(t, "requested", n.RequestedResult(1).String(), "{p3}")
	if _, known := n.TreeIn(1); known {
		t.Error("tree of agreement 1 known before agreement 0 decided")
	}
}

// TestAckAgreeContributesKnownFailures: AckAgree contributes (flag, S_p,
// S_p), with or without rebalancing; Agreement(v, a) contributes v as given
// (ERA adds nothing to a contribution).
func TestAckAgreeContributesKnownFailures(t *testing.T) {
	for _, rebalance := range []bool{false, true} {
		n := newNode(t, 1, Config{N: 4, Op: ULFM, Rebalance: rebalance})
		step(t, n, core.Suspect(2))
		step(t, n, core.Call(AckAgree{A: 0, Flag: 5}))
		want(t, "current", fmt.Sprint(n.Current(0)), "ulfm(0x5 failed={p2} acked={p2})")
		want(t, "input", fmt.Sprint(n.Input(0)), "ulfm(0x5 failed={p2} acked={p2})")
		m := newNode(t, 1, Config{N: 4, Op: ULFM, Rebalance: rebalance})
		step(t, m, core.Suspect(2))
		step(t, m, core.Call(Contribute{A: 0, V: NewContribution(5, ranks(3), ranks(3))}))
		want(t, "current of a plain call", fmt.Sprint(m.Current(0)), "ulfm(0x5 failed={p3} acked={p3})")
	}
	if _, err := newNode(t, 1, Config{N: 4}).Step(core.Call(AckAgree{A: 0, Flag: 1}), nil); err == nil {
		t.Error("AckAgree under the and op: no error")
	}
}
