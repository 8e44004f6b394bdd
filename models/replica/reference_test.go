package replica

import (
	"slices"
	"testing"

	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// TestReferenceOutputs: the plain interpreter's outputs for the shipped
// programs, computed by hand from their definitions (statemachine/replica
// Programs).
func TestReferenceOutputs(t *testing.T) {
	cases := []struct {
		name  string
		procs int
		want  map[int][][]int64 // logical process → its possible outputs
	}{
		// P0 sends 1, P1 returns 2, P0 sends 2, P1 returns 3.
		{"ping-pong", 2, map[int][][]int64{0: {{3}}, 1: {{3}}}},
		// 1 → +2 (P1) → +3 (P2) → P0 receives 6.
		{"ring", 3, map[int][][]int64{0: {{6}}, 1: {{3}}, 2: {{6}}}},
		// P0 sends 1, P1 sends 20: 21.
		{"gather-sum", 3, map[int][][]int64{2: {{21}}}},
		{"gather-sum-any-source", 3, map[int][][]int64{2: {{21}}}},
		// 1 − 20 or 20 − 1.
		{"gather-diff-any-source", 3, map[int][][]int64{2: {{-19}, {19}}}},
		// tasks 2 and 3 → 21 and 32.
		{"master-worker", 3, map[int][][]int64{0: {{53}}}},
		// 1 − 2.
		{"mid-example", 3, map[int][][]int64{2: {{-1}}}},
	}
	for _, c := range cases {
		progs, err := sm.Programs(c.name, c.procs, 2)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := RunReference(progs, 1<<16)
		if err != nil {
			t.Fatal(err)
		}
		if ref.Deadlock {
			t.Errorf("%s deadlocks", c.name)
		}
		for i, want := range c.want {
			if !slices.EqualFunc(ref.Outputs[i], want, slices.Equal) {
				t.Errorf("%s: P%d outputs %v, want %v", c.name, i, ref.Outputs[i], want)
			}
		}
	}
	// gather-diff-any-source: two joint outcomes (P_2 outputs −19 or 19).
	progs, _ := sm.Programs("gather-diff-any-source", 3, 1)
	if ref, err := RunReference(progs, 1<<16); err != nil || len(ref.Joint) != 2 {
		t.Fatalf("joint outputs %v, %v", ref.Joint, err)
	}
	// A program that waits forever is reported.
	ref, err := RunReference([]sm.Program{{{Op: sm.OpRecv, Peer: 1, Tag: 0, Fn: sm.FnSet}}, {}}, 100)
	if err != nil || !ref.Deadlock {
		t.Fatalf("deadlock not found: %v %v", ref, err)
	}
}
