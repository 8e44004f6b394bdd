package gossipfd

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// TestRotationMapsRunsToRuns: run a world with crash set K, and the same
// world with every host renamed s ↦ s+c and crash set K+c; at every round
// the state of host s+c in the second is the rotation of host s's in the
// first (RR, BRR, DBRR, with and without the ping phase and RouteLive).
func TestRotationMapsRunsToRuns(t *testing.T) {
	for _, cfg := range []*Config{
		{N: 5, Variant: RR, TGossip: 4, Cleanup: 2},
		{N: 6, Variant: BRR, TGossip: 4, Cleanup: 3, Ping: true, PingTimeout: 3},
		{N: 7, Variant: DBRR, TGossip: 4, Cleanup: 4, Routing: RouteLive, Ping: true, PingTimeout: 2},
	} {
		if !cfg.RotationInvariant() {
			t.Fatalf("%v: not rotation invariant", cfg.Variant)
		}
		N := cfg.N
		for c := 1; c < N; c++ {
			a, b := newWorld(t, cfg), newWorld(t, cfg)
			for g := range 25 {
				if g == 4 {
					for _, k := range []int{0, 1, 3} {
						a.dead[k] = true
						b.dead[(k+c)%N] = true
					}
				}
				a.round()
				b.round()
				for s := range N {
					want := a.nodes[s].Rotate(c).AppendBinary(nil)
					if got := b.nodes[(s+c)%N].AppendBinary(nil); string(got) != string(want) {
						t.Fatalf("%v c=%d round %d: host %d rotated is %v, host %d is %v", cfg.Variant, c, g+1, s, a.nodes[s].Rotate(c), (s+c)%N, b.nodes[(s+c)%N])
					}
				}
			}
		}
	}
}

func TestRotateComposes(t *testing.T) {
	for _, n := range reachedStates(t)[:200] {
		N := n.cfg.N
		if string(n.Rotate(N).AppendBinary(nil)) != string(n.AppendBinary(nil)) {
			t.Fatalf("rotation by N changed %v", n)
		}
		if string(n.Rotate(2).Rotate(N-2).AppendBinary(nil)) != string(n.AppendBinary(nil)) || n.Rotate(1).Self() != (n.Self()+1)%core.Rank(N) {
			t.Fatalf("rotations do not compose on %v", n)
		}
	}
	if g := RotateMessage(Gossip{Table: []uint64{1, 2, 3}}, 1, 3).(Gossip); g.Table[0] != 3 || g.Table[1] != 1 {
		t.Errorf("rotated table %v, want [3 1 2]", g.Table)
	}
}

// TestRotateTimer: the ping timer of host x moves with x; the gossip timer
// and ids that name no host stay.
func TestRotateTimer(t *testing.T) {
	for _, c := range []struct {
		id   uint64
		c, n int
		want uint64
	}{
		{TimerGossip, 3, 4, TimerGossip},
		{TimerPingBase + 0, 1, 4, TimerPingBase + 1},
		{TimerPingBase + 3, 1, 4, TimerPingBase + 0},
		{TimerPingBase + 2, -1, 4, TimerPingBase + 1},
		{TimerPingBase + 2, 6, 4, TimerPingBase + 0},
		{TimerPingBase + 4, 1, 4, TimerPingBase + 4},
	} {
		if got := RotateTimer(c.id, c.c, c.n); got != c.want {
			t.Errorf("RotateTimer(%d, %d, %d) = %d, want %d", c.id, c.c, c.n, got, c.want)
		}
	}
}

// TestAppendRotated: the allocation-free encoders give the bytes of the
// rotated state and message, for every rotation of reached states and of
// the tables they gossip.
func TestAppendRotated(t *testing.T) {
	for _, n := range reachedStates(t)[:300] {
		N := n.cfg.N
		for c := -1; c <= N; c++ {
			if got, want := n.AppendRotated(nil, c), n.Rotate(c).AppendBinary(nil); string(got) != string(want) {
				t.Fatalf("rotation %d of %v: %x, want %x", c, n, got, want)
			}
			for _, m := range []core.Message{Gossip{Table: append([]uint64(nil), n.hb...)}, Ping{}, Pong{HB: n.g}} {
				if got, want := AppendRotatedMessage(nil, m, c, N), RotateMessage(m, c, N).AppendBinary(nil); string(got) != string(want) {
					t.Fatalf("rotation %d of %v: %x, want %x", c, m, got, want)
				}
			}
		}
	}
}
