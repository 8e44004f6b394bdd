package replica

import "testing"

// TestPingPongOverhead is §4.4's message overhead as counts: ping-pong
// (both processes replicated, degree r) costs 2r − 1 messages per logical
// send, against 1 without replication; counted by running the replicas.
func TestPingPongOverhead(t *testing.T) {
	for r := 1; r <= 4; r++ {
		c, err := MeasureCost(Params{Program: "ping-pong", Procs: 2, Degree: r, Rounds: 10, ReplicateRank0: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("r=%d: %d logical sends, %d DATA, %d COMMIT, %.0f messages per send", r, c.LogicalSends, c.Data, c.Commits, c.PerSend())
		if c.LogicalSends != 20 || c.PerSend() != float64(2*r-1) {
			t.Fatalf("r=%d: %+v, want 20 sends and %d messages each", r, c, 2*r-1)
		}
	}
}
