package gossipfd

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestForget: on every reached state, Forget keeps the host, Started, the
// round g, the suspected and declared sets (what models/gossipfd's
// properties read of a crashed host), zeroes the other hosts' heartbeat
// and lastInc entries, leaves the receiver unchanged, is idempotent, and
// DecodeNode reads its encoding back to the same node (go-cmp).
func TestForget(t *testing.T) {
	states := reachedStates(t)
	news := 0
	for _, n := range states {
		before := n.AppendBinary(nil)
		f, ok := n.Forget().(*Node)
		if !ok {
			t.Fatalf("Forget of %v is not a *Node", n)
		}
		if !bytes.Equal(n.AppendBinary(nil), before) {
			t.Fatalf("Forget changed its receiver %v", n)
		}
		if f.Self() != n.Self() || f.Started() != n.Started() || f.Round() != n.Round() ||
			!f.Suspected().Equal(n.Suspected()) || !f.Declared().Equal(n.Declared()) {
			t.Fatalf("Forget of %v lost what the properties read: %v", n, f)
		}
		for x := range f.hb {
			if x != int(f.self) && (f.hb[x] != 0 || f.lastInc[x] != 0) {
				t.Fatalf("Forget of %v kept news of %d: %v", n, x, f)
			}
			if x != int(n.self) && n.hb[x] != 0 {
				news++
			}
		}
		b := f.AppendBinary(nil)
		d, err := DecodeNode(b, n.self, n.cfg)
		if err != nil {
			t.Fatalf("Forget of %v does not decode: %v", n, err)
		}
		if diff := cmp.Diff(f, d, nodeCmp); diff != "" {
			t.Fatalf("Forget of %v: round trip differs (-forgotten +decoded):\n%s", n, diff)
		}
		if !bytes.Equal(f.Forget().AppendBinary(nil), b) {
			t.Fatalf("Forget is not idempotent on %v", n)
		}
	}
	if news == 0 {
		t.Fatal("no reached state had news of another host: the states do not exercise Forget")
	}
}
