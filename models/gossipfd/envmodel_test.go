package gossipfd

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// TestEnvBoundedDelay: under checker/env's bounded delay (Δ = 1 tick,
// T_gossip = 4 ticks, every order of a tick's steps, crashes at any step),
// BRR at n = 4 with two crashes declares a live host (§5.1's example, no
// ping phase), while DBRR at the paper's T_cleanup with the ping phase
// keeps both properties over its whole bounded run.
func TestEnvBoundedDelay(t *testing.T) {
	m, err := NewEnvModel(EnvParams{Node: fd.Config{N: 4, Variant: fd.BRR, TGossip: 4, Cleanup: 4, MaxRounds: 8}, Crashes: 2, Delta: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := checker.Search[*env.World](m, checker.Options{})
	if len(r.Violations) == 0 || r.Violations[0].Violation.Property != "accuracy" && r.Violations[0].Violation.Property != "no-false-suspicion" {
		t.Errorf("BRR n=4 F=2: %d violations", len(r.Violations))
	}
	m, err = NewEnvModel(EnvParams{Node: fd.Config{N: 4, Variant: fd.DBRR, TGossip: 4, Cleanup: 6, Ping: true, PingTimeout: 3, MaxRounds: 12}, Crashes: 2, Delta: 1})
	if err != nil {
		t.Fatal(err)
	}
	r = checker.Search[*env.World](m, checker.Options{})
	if len(r.Violations) != 0 || !r.Complete {
		t.Errorf("DBRR n=4 F=2: %d violations, complete %v", len(r.Violations), r.Complete)
	}
	t.Logf("DBRR n=4 F=2 Δ=1, 12 rounds: %d states", r.States)
	if _, err := NewEnvModel(EnvParams{Node: fd.Config{N: 4, Variant: fd.BRR, TGossip: 4, Cleanup: 4}, Delta: 1}); err == nil {
		t.Error("an unbounded run accepted")
	}
	if _, err := NewEnvModel(EnvParams{Node: fd.Config{N: 4, Variant: fd.BRR, TGossip: 4, Cleanup: 4, Ping: true, PingTimeout: 2, MaxRounds: 4}, Delta: 1}); err == nil {
		t.Error("a ping timeout of 2Δ accepted")
	}
}
