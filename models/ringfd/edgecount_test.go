package ringfd

import (
	"os"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// TestEdgeCounts: §4.6 (3)'s "all edges of the BMG will carry exactly one
// message per detection", over every run of N = 4 daemons (Δ = 1, δ = 3,
// η = 5), counted per edge in every settled state. One crash (p0, detected
// by its observer p1): every edge from a live daemon carries exactly one
// FAULT naming p0. p0 and its observer p1 both crashing, at any steps, with
// the messages of a crashed sender lost: the broadcast of p0 is started by
// p1, by p2 (p1 died before detecting p0, or after, with every FAULT it sent
// to a live daemon lost), or by both; every edge from a live daemon still
// carries exactly one FAULT naming p0, an edge from the crashed p1 carries
// 0 or 1 (delivered or not), and no daemon starts the broadcast of p0
// twice.
func TestEdgeCounts(t *testing.T) {
	p := CheckParams{N: 4, Delta: 1, Period: 3, Timeout: 5}
	one, err := EdgeCounts(p, []core.Rank{0}, 0, env.LossNone, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(one)
	if !one.Complete || one.Settled == 0 || len(one.ByCase) != 1 {
		t.Fatalf("one crash: complete %v, %d settled states, %d cases; want complete, some, one (p1 starts)", one.Complete, one.Settled, len(one.ByCase))
	}
	for k, s := range one.ByCase {
		if k.Starters != "p1" || s.LiveMin != 1 || s.LiveMax != 1 || s.DelivMax != 1 {
			t.Errorf("one crash, started by [%s]: live edges carry %d…%d, delivered ≤ %d; want exactly 1 from p1's broadcast", k.Starters, s.LiveMin, s.LiveMax, s.DelivMax)
		}
	}
	two, err := EdgeCounts(p, []core.Rank{0, 1}, 0, env.LossOnCrash, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(two)
	if !two.Complete || two.Settled == 0 || two.MaxPerDaemonID != 1 {
		t.Fatalf("p0 and p1 crash: complete %v, %d settled states, a daemon started p0's broadcast %d times; want complete, some, once", two.Complete, two.Settled, two.MaxPerDaemonID)
	}
	both := false
	for k, s := range two.ByCase {
		both = both || k.Starters == "p1 p2"
		if s.LiveMin != 1 || s.LiveMax != 1 {
			t.Errorf("p0 and p1 crash, started by [%s], %d lost: edges from live daemons carry %d…%d FAULTs naming p0, want exactly 1", k.Starters, k.Lost, s.LiveMin, s.LiveMax)
		}
		if s.DeadMax > 1 {
			t.Errorf("p0 and p1 crash, started by [%s]: an edge from a crashed daemon carries %d", k.Starters, s.DeadMax)
		}
	}
	if !both {
		t.Error("no settled state in which p1 and p2 both started the broadcast of p0")
	}
}

// TestEdgeCountsTable prints docs/ringfd.md's per-edge counts (34 s on the
// shared machine, 1.1 million states for Open MPI's BMG): RINGFD_EDGE_TABLE=1 go test ./models/ringfd -run TestEdgeCountsTable -v
func TestEdgeCountsTable(t *testing.T) {
	if os.Getenv("RINGFD_EDGE_TABLE") == "" {
		t.Skip("RINGFD_EDGE_TABLE=1 prints the table")
	}
	for _, c := range []struct {
		p    CheckParams
		fail []core.Rank
		loss env.Loss
	}{
		{CheckParams{N: 4, Delta: 1, Period: 3, Timeout: 5}, []core.Rank{0}, env.LossNone},
		{CheckParams{N: 4, Delta: 1, Period: 3, Timeout: 5}, []core.Rank{0, 1}, env.LossNone},
		{CheckParams{N: 4, Delta: 1, Period: 3, Timeout: 5}, []core.Rank{0, 1}, env.LossOnCrash},
		{CheckParams{N: 4, Delta: 1, Period: 3, Timeout: 5, BMG: fd.BMGOMPI}, []core.Rank{0, 1}, env.LossOnCrash},
	} {
		r, err := EdgeCounts(c.p, c.fail, 0, c.loss, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("N=%d Δ=%d δ=%d η=%d bmg=%v fail=%v loss=%v:\n%s", c.p.N, c.p.Delta, c.p.Period, c.p.Timeout, c.p.BMG, c.fail, c.loss, r)
	}
}
