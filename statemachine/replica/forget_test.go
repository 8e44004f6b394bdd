package replica

import (
	"bytes"
	"testing"

	"github.com/ftkernel/ftkernel/internal/forgettest"
	"github.com/google/go-cmp/cmp"
)

// TestForget: on every replica state of random runs of the first shipped
// programs (every third configuration), Forget is the replica's initial state (New of its rank: its
// identity, Logical and Index, kept; everything else reset), leaves the
// receiver unchanged, is idempotent, and DecodeNode reads its encoding
// back to the same node (go-cmp).
func TestForget(t *testing.T) {
	moved := 0
	for i, cfg := range shippedConfigs(t) {
		if i%3 != 0 {
			continue
		}
		randomRun(t, cfg, uint64(i), 2, func(n *Node) {
			before := n.AppendBinary(nil)
			f, err := forgettest.Check(n, func(b []byte) (*Node, error) { return DecodeNode(b, n.self, cfg) },
				func(a, b *Node) string { return cmp.Diff(a, b, nodeCmp...) })
			if err != nil {
				t.Fatal(err)
			}
			init, err := New(n.self, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(init, f, nodeCmp...); d != "" || f.Rank() != n.Rank() || f.Logical() != n.Logical() || f.Index() != n.Index() {
				t.Fatalf("Forget of %v is not its initial state (-initial +forgotten):\n%s", n, d)
			}
			if !bytes.Equal(before, f.AppendBinary(nil)) {
				moved++
			}
		})
	}
	if moved == 0 {
		t.Fatal("every state was initial: the runs do not exercise Forget")
	}
}
