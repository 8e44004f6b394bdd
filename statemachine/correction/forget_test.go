package correction

import (
	"testing"

	"github.com/ftkernel/ftkernel/internal/forgettest"
	"github.com/google/go-cmp/cmp"
)

// TestForget: on every state of seeded random runs of every encoding
// configuration, Forget keeps the rank, Via, the value of a colored
// process, Sent and SendBound (the reads of models/correction's
// properties), resets the flags, the turn and the cursors, leaves the
// receiver unchanged, is idempotent, and DecodeNode reads its encoding
// back to the same node (go-cmp, message cache included).
func TestForget(t *testing.T) {
	states, colored := 0, 0
	for _, cfg := range encodingConfigs(t) {
		randomRun(t, cfg, 1, func(n *Node) {
			states++
			f, err := forgettest.Check(n, func(b []byte) (*Node, error) { return DecodeNode(b, n.Rank(), cfg) },
				func(a, b *Node) string { return cmp.Diff(a, b, nodeCmp) })
			if err != nil {
				t.Fatal(err)
			}
			if f.Rank() != n.Rank() || f.Via() != n.Via() || f.Sent() != n.Sent() || f.SendBound() != n.SendBound() ||
				n.Colored() && f.Value() != n.Value() {
				t.Fatalf("Forget of %v lost what the properties read: %v", n, f)
			}
			if f.flags != 0 || f.turn != Left || f.nextL|f.nextR|f.limL|f.limR|f.recvL|f.recvR != 0 {
				t.Fatalf("Forget of %v kept the correction state: %v", n, f)
			}
			if n.Colored() {
				colored++
			}
		})
	}
	if colored == 0 || colored == states {
		t.Fatalf("%d states, %d colored: the runs do not exercise Forget", states, colored)
	}
}

// TestForgetMutantDropsCause: the test-only MutantForgetDropsCause makes
// a colored process's forgotten node uncolored.
func TestForgetMutantDropsCause(t *testing.T) {
	cfg := encodingConfigs(t)[0]
	cfg = &Config{Topology: cfg.Topology, Correction: Checked, Start: Overlapped, Mutant: MutantForgetDropsCause}
	dropped := false
	randomRun(t, cfg, 1, func(n *Node) {
		if n.Colored() {
			if n.Forget().(*Node).Colored() {
				t.Fatalf("the mutant kept the color of %v", n)
			}
			dropped = true
		}
	})
	if !dropped {
		t.Fatal("no colored state")
	}
}
