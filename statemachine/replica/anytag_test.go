package replica

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// TestAnyTagNonOvertaking: P_0 (unreplicated) sends 1 with tag 5, then 2
// with tag 1, to P_1 (two replicas), which receives twice with
// Recv(0, ANY_TAG) and outputs first − second. Under MPI's non-overtaking
// rule the output is 1 − 2 = −1 (nonOvertaking). Replica p1 gets the
// tag-1 message first and must wait for the tag-5 one; replica p2 gets
// both, in sending order, after it started. Both deliver tag 5 first and
// output −1. The literal MID order (MutantAnyTagMIDOrder) makes p1 deliver
// the tag-1 message at once (its MID is smaller) and output 2 − 1 = 1.
func TestAnyTagNonOvertaking(t *testing.T) {
	progs, err := Programs("any-tag-diff", 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mutant      string
		p1Delivered int // deliveries of p1 before the tag-5 message reaches it
		out1        int64
	}{
		{"", 0, -1},
		{string(MutantAnyTagMIDOrder), 1, 1},
	} {
		cl := newCluster(t, Config{Layout: layoutOf(t, 1, 2), Programs: progs, Mutant: mutantName(c.mutant)})
		for r := core.Rank(0); r < 3; r++ {
			cl.start(r)
		}
		cl.pump(0) // DATA tag 5 to p1, p2; DATA tag 1 to p1, p2
		if got := len(cl.flight); got != 4 {
			t.Fatalf("%q: %d messages in flight, want 4", c.mutant, got)
		}
		// p1: tag 1 overtakes tag 5 (as after a failover, or on an
		// unordered network).
		cl.step(1, core.Receive(0, cl.flight[2].msg))
		if got := len(cl.deliv[1]); got != c.p1Delivered {
			t.Fatalf("%q: p1 delivered %v with the tag-5 message pending, want %d deliveries", c.mutant, cl.deliv[1], c.p1Delivered)
		}
		cl.step(1, core.Receive(0, cl.flight[0].msg))
		cl.deliver(0, 2)
		cl.deliver(0, 2)
		if got := cl.outs[1]; len(got) != 1 || got[0] != c.out1 {
			t.Errorf("%q: p1 output %v, want [%d]", c.mutant, got, c.out1)
		}
		if got := cl.outs[2]; len(got) != 1 || got[0] != -1 {
			t.Errorf("%q: p2 output %v, want [-1]", c.mutant, got)
		}
	}
}
