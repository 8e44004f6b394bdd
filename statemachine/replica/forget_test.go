package replica

import (
	"bytes"
	"testing"

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
			f, ok := n.Forget().(*Node)
			if !ok {
				t.Fatalf("Forget of %v is not a *Node", n)
			}
			if !bytes.Equal(n.AppendBinary(nil), before) {
				t.Fatalf("Forget changed its receiver %v", n)
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
			b := f.AppendBinary(nil)
			d, err := DecodeNode(b, n.self, cfg)
			if err != nil {
				t.Fatalf("Forget of %v does not decode: %v", n, err)
			}
			if diff := cmp.Diff(f, d, nodeCmp...); diff != "" {
				t.Fatalf("Forget of %v: round trip differs:\n%s", n, diff)
			}
			if !bytes.Equal(f.Forget().AppendBinary(nil), b) {
				t.Fatalf("Forget is not idempotent on %v", n)
			}
		})
	}
	if moved == 0 {
		t.Fatal("every state was initial: the runs do not exercise Forget")
	}
}
