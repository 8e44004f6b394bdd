package fuzz

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ftkernel/ftkernel/core"
	model "github.com/ftkernel/ftkernel/models/gossipfd"
	"github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// TestGossipfdRapid: rapid draws a detector (RR, BRR or DBRR, n = 3…8,
// with or without the ping phase, T_cleanup the paper's setting), one crash
// at any tick of a run in the round model with message delays of 1…3 ticks
// (below T_gossip = 8 ticks), and checks the detector's two properties:
// accuracy (no host alive at the time is declared failed) and completeness
// (every live host declares the crashed one within T_cleanup plus two
// cycles plus ⌈log2 n⌉ + 2 rounds of the crash). With a single crash the
// round model has no false suspicion at these settings
// (models/gossipfd.MinCleanup), so accuracy must hold.
func TestGossipfdRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		v := rapid.SampledFrom([]gossipfd.Variant{gossipfd.RR, gossipfd.BRR, gossipfd.DBRR}).Draw(rt, "variant")
		n := rapid.IntRange(3, 8).Draw(rt, "n")
		ping := rapid.Bool().Draw(rt, "ping")
		C, _ := gossipfd.PaperCleanup(v, n, gossipfd.CleanupMargin)
		victim := core.Rank(rapid.IntRange(0, n-1).Draw(rt, "victim"))
		const T = 8
		at := uint64(rapid.IntRange(0, 30*T).Draw(rt, "crash tick"))
		bound := uint64(C+2*gossipfd.Cycle(v, n)+gossipfd.CeilLog2(n)+2) * T
		sc := model.SimConfig{
			Node:     gossipfd.Config{N: n, Variant: v, TGossip: T, Cleanup: uint64(C), Ping: ping, PingTimeout: T - 1},
			DelayMin: 1, DelayMax: 3, Seed: rapid.Uint64().Draw(rt, "seed"),
			Crash:  map[core.Rank]uint64{victim: at},
			Rounds: int((at+bound)/T) + 2,
		}
		r, err := model.Simulate(sc)
		if err != nil {
			rt.Fatal(err)
		}
		declared := map[core.Rank]uint64{}
		for _, e := range r.Declarations {
			if sc.Live(e.X, e.Tick) {
				rt.Fatalf("accuracy: %v declared live %v at tick %d", e.By, e.X, e.Tick)
			}
			if e.X == victim {
				declared[e.By] = e.Tick
			}
		}
		for s := range core.Rank(n) {
			if s == victim {
				continue
			}
			if d, ok := declared[s]; !ok || d > at+bound {
				rt.Fatalf("completeness: %v declared %v at tick %d (%v), crash at %d, bound %d", s, victim, d, ok, at, bound)
			}
		}
	})
}
