package abcast_test

import (
	"bytes"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// TestAbsorbs: a consensus member other than the coordinator absorbs
// every valid MSG (keepsVector): the delivery emits nothing and leaves the
// encoding as it was, before and after the member's own broadcasts. The
// coordinator, the UB and BB members, the members under the two mutants
// that read the vector, DECISIONs and malformed MSGs are not absorbed, and
// there the MSG delivery changes the member or is an error.
func TestAbsorbs(t *testing.T) {
	msg := func(o core.Rank, s uint32) ab.Msg { return ab.Msg{ID: ab.ID{Origin: o, Seq: s}, Num: ab.NoNum} }
	for _, c := range []struct {
		v      ab.Variant
		self   core.Rank
		mut    mutant.Name
		absorb bool
	}{
		{ab.ConsensusBased, 1, mutant.None, true},
		{ab.ConsensusBased, 2, ab.MutantWaitFullBatch, true},
		{ab.ConsensusBased, 0, mutant.None, false},
		{ab.ConsensusBased, 1, ab.MutantDeliverBeforeDecision, false},
		{ab.ConsensusBased, 1, ab.MutantBatchArrivalOrder, false},
		{ab.UB, 0, mutant.None, false},
		{ab.BB, 1, mutant.None, false},
	} {
		cfg := ab.Config{N: 3, Variant: c.v, K: 2, Messages: 2, Mutant: c.mut}
		if c.v == ab.ConsensusBased {
			cfg.Consensus = instant{}
		}
		n, err := ab.New(c.self, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for calls := range 3 {
			if calls > 0 {
				if _, err := n.Step(core.Call(ab.Broadcast{Seq: uint32(calls - 1)}), nil); err != nil {
					t.Fatal(err)
				}
			}
			from := (c.self + 1) % 3
			m := msg(from, uint32(calls%2))
			if got := n.Absorbs(from, m); got != c.absorb {
				t.Fatalf("%v p%d %s after %d calls: Absorbs(%v) = %v, want %v", c.v, c.self, c.mut, calls, m, got, c.absorb)
			}
			if n.Absorbs(from, msg(from, 7)) || n.Absorbs(from, ab.Decision{Inst: 0, Batch: []ab.ID{m.ID}}) {
				t.Fatalf("%v p%d: a malformed MSG or a DECISION is absorbed", c.v, c.self)
			}
			if c.v == ab.UB && c.self != ab.Sequencer {
				continue
			}
			before := n.AppendBinary(nil)
			c2 := n.Clone()
			effs, err := c2.Step(core.Receive(from, m), nil)
			if err != nil {
				t.Fatal(err)
			}
			same := len(effs) == 0 && bytes.Equal(before, c2.AppendBinary(nil))
			if same != c.absorb {
				t.Fatalf("%v p%d %s: MSG %v: no effect and the same encoding = %v, Absorbs = %v", c.v, c.self, c.mut, m, same, c.absorb)
			}
		}
	}
}
