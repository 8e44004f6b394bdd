package abcast_test

import (
	"testing"

	"github.com/ftkernel/ftkernel/models/abcast"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

func round(t *testing.T, v ab.Variant, n, k int) abcast.RoundResult {
	t.Helper()
	res, err := abcast.Round{Variant: v, N: n, Unstable: 2, K: k, Seed: 1, Tx: 1, Handle: 0.1}.Simulate()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestAppendixMessageCounts: the message counts of Figs. A.3 and A.4, row
// by row, with s = N − 2 members each broadcasting one message. UB and BB
// match the appendix under its convention (UB leaves out the sequencer's
// acknowledgement to each origin, s − 1 messages); the consensus variant
// matches at 32 and 64 nodes (broadcast s(s−1), the decision to the s
// members, phase 2 2s; phase 1 pre-executed and not counted) and not at
// 128, where the model's Paxos count is 2s = 252, not 342.
func TestAppendixMessageCounts(t *testing.T) {
	for _, c := range []struct {
		n                          int
		ub, bb, consensus, paxos   int // the appendix's
		modelConsensus, modelPaxos int // the model's, under the convention
	}{
		{32, 870, 1711, 960, 60, 960, 60},
		{64, 3782, 7503, 3968, 124, 3968, 124},
		{128, 15750, 31375, 16218, 342, 16128, 252},
	} {
		s := c.n - 2
		ub := round(t, ab.UB, c.n, 0)
		if ub.Total != s*s-1 || ub.SeqAck != s-1 || ub.Total-ub.SeqAck != c.ub {
			t.Errorf("n=%d UB: %d messages, %d acks; want s²−1 = %d with s−1 acks and %d without", c.n, ub.Total, ub.SeqAck, s*s-1, c.ub)
		}
		bb := round(t, ab.BB, c.n, 0)
		if bb.Total != c.bb || bb.Total != s*(s-1)+(s-1)*(s-1) {
			t.Errorf("n=%d BB: %d messages, want %d", c.n, bb.Total, c.bb)
		}
		cs := round(t, ab.ConsensusBased, c.n, 0)
		appendix := cs.Broadcast + cs.Decision + cs.Instances + cs.Phase2
		if cs.Instances != 1 || cs.Phase2 != c.modelPaxos || cs.Phase1 != 2*s || appendix != c.modelConsensus {
			t.Errorf("n=%d consensus: %d instances, phase 2 %d, phase 1 %d, appendix's convention %d; want 1, %d, %d, %d",
				c.n, cs.Instances, cs.Phase2, cs.Phase1, appendix, c.modelPaxos, 2*s, c.modelConsensus)
		}
		if (appendix == c.consensus) != (c.n != 128) {
			t.Errorf("n=%d: the model's %d against the appendix's %d", c.n, appendix, c.consensus)
		}
	}
}

// TestFigA2: 32 nodes, k = 5: six instances of 60 Paxos messages each
// (phase 2), after 150 messages per instance (5 messages to 30 members).
func TestFigA2(t *testing.T) {
	res := round(t, ab.ConsensusBased, 32, 5)
	if res.Instances != 6 || res.Phase2 != 6*60 || res.Broadcast != 30*29 {
		t.Fatalf("instances %d, phase 2 %d, broadcast %d; want 6, 360, 870", res.Instances, res.Phase2, res.Broadcast)
	}
}

// TestLatencyShape: the shape of Fig. A.4(a) at 128 nodes: BB about twice
// UB, consensus close to UB, and one consensus instance a small part of
// the consensus variant's latency (Fig. A.3(a): "o custo do consenso para a
// latência total da difusão atômica é mínimo").
func TestLatencyShape(t *testing.T) {
	ub, bb, cs := round(t, ab.UB, 128, 0), round(t, ab.BB, 128, 0), round(t, ab.ConsensusBased, 128, 0)
	if r := bb.Latency / ub.Latency; r < 1.7 || r > 2.3 {
		t.Errorf("BB/UB latency %.2f, want about 2", r)
	}
	if r := cs.Latency / ub.Latency; r < 0.9 || r > 1.2 {
		t.Errorf("consensus/UB latency %.2f, want about 1", r)
	}
	if r := cs.ConsensusLatency / cs.Latency; r > 0.05 {
		t.Errorf("consensus instance %.1f of %.1f", cs.ConsensusLatency, cs.Latency)
	}
}

// TestRoundDeterministic: the same seed gives the same round.
func TestRoundDeterministic(t *testing.T) {
	a, b := round(t, ab.BB, 32, 0), round(t, ab.BB, 32, 0)
	if a != b {
		t.Fatalf("%+v != %+v", a, b)
	}
}
