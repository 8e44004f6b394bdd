package gossipfd

import (
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/internal/forgettest"
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
		f, err := forgettest.Check(n, func(b []byte) (*Node, error) { return DecodeNode(b, n.self, n.cfg) },
			func(a, b *Node) string { return cmp.Diff(a, b, nodeCmp) })
		if err != nil {
			t.Fatal(err)
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
	}
	if news == 0 {
		t.Fatal("no reached state had news of another host: the states do not exercise Forget")
	}
}

// TestForgetMutantDropsRound: the test-only MutantForgetDropsRound is
// accepted by a Config (not by Mutants) and makes Forget return round 0,
// a node DecodeNode reads back.
func TestForgetMutantDropsRound(t *testing.T) {
	dropped := false
	for _, n := range reachedStates(t) {
		cfg := *n.cfg
		cfg.Mutant = MutantForgetDropsRound
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		m := n.clone()
		m.cfg = &cfg
		f := m.Forget().(*Node)
		if f.Round() != 0 {
			t.Fatalf("the mutant kept round %d of %v", f.Round(), n)
		}
		if _, err := DecodeNode(f.AppendBinary(nil), f.self, &cfg); err != nil {
			t.Fatalf("the mutant's forgotten node does not decode: %v", err)
		}
		dropped = dropped || n.Round() > 0
	}
	if !dropped || slices.Contains(Mutants, MutantForgetDropsRound) {
		t.Fatalf("no state past round 0 (%v), or the Forget mutant is a protocol mutant", dropped)
	}
}
