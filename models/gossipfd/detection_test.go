package gossipfd

import (
	"math"
	"testing"

	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// TestDetectionPingAddsItsTimeout: every crash is detected, never a live
// host; the theoretical time is T_cleanup × T_gossip; and with fixed delays
// the ping phase adds exactly its timeout to every declaration.
func TestDetectionPingAddsItsTimeout(t *testing.T) {
	for _, v := range []fd.Variant{fd.BRR, fd.DBRR} {
		for _, n := range []int{4, 8, 16} {
			base := DetectionConfig{Variant: v, N: n, TGossipSec: 0.5, TicksPerRound: 50, DelayMin: 2, DelayMax: 2, CrashSec: 20}
			noPing, err := Detection(base)
			if err != nil {
				t.Fatal(err)
			}
			base.Ping, base.PingTimeout = true, 30
			ping, err := Detection(base)
			if err != nil {
				t.Fatal(err)
			}
			C, _ := fd.PaperCleanup(v, n, fd.CleanupMargin)
			if noPing.Theoretical != float64(C)*0.5 || noPing.FalseDeclarations+ping.FalseDeclarations != 0 {
				t.Errorf("%v n=%d: %+v", v, n, noPing)
			}
			if noPing.MeanDeclare != noPing.MeanSuspect {
				t.Errorf("%v n=%d: without ping, declaration %v ≠ suspicion %v", v, n, noPing.MeanDeclare, noPing.MeanSuspect)
			}
			if d := ping.MeanDeclare - ping.MeanSuspect; math.Abs(d-30*0.01) > 1e-9 || ping.MeanSuspect != noPing.MeanSuspect {
				t.Errorf("%v n=%d: ping adds %v s, want 0.3 s", v, n, d)
			}
			// A suspicion needs more than T_cleanup rounds without news.
			if noPing.MeanSuspect <= noPing.Theoretical {
				t.Errorf("%v n=%d: mean suspicion %v s ≤ T_cleanup %v s", v, n, noPing.MeanSuspect, noPing.Theoretical)
			}
		}
	}
}

// TestLoadOneMessagePerHost: every variant sends n GOSSIP messages per
// round (§5.1 RR: "each node will receive and send a single gossip
// message"); at round 40 every counter is below 128, so a message is
// 1 (tag) + varint(n) + n bytes.
func TestLoadOneMessagePerHost(t *testing.T) {
	for _, v := range fd.Variants {
		for _, n := range []int{2, 5, 64, 130} {
			r, err := Load(v, n, 40, 3)
			if err != nil {
				t.Fatal(err)
			}
			vn := 1
			if n >= 128 {
				vn = 2
			}
			if r.MessagesPerRound != n || r.BytesPerRound != n*(1+vn+n) {
				t.Errorf("%v n=%d: %d messages, %d bytes; want %d, %d", v, n, r.MessagesPerRound, r.BytesPerRound, n, n*(1+vn+n))
			}
		}
	}
}
