package gossipfd

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// e1 is the paper's §5.1 BRR example in the round model:
// n = 4, nodes 0 and 1 crash at tick 8·T_gossip (before their round-8
// gossip), T_cleanup = 4 rounds.
func e1(t *testing.T, mod func(c *fd.Config)) (*SimResult, SimConfig) {
	t.Helper()
	c := fd.Config{N: 4, Variant: fd.BRR, TGossip: RoundTicks, Cleanup: 4, PingTimeout: RoundTicks / 2}
	if mod != nil {
		mod(&c)
	}
	sc := SimConfig{Node: c, DelayMin: 1, DelayMax: 1, Rounds: 40,
		Crash: map[core.Rank]uint64{0: 8 * RoundTicks, 1: 8 * RoundTicks}}
	r, err := Simulate(sc)
	if err != nil {
		t.Fatal(err)
	}
	return r, sc
}

// TestPaperBRRExample (§5.1): "if node 0 and 1 fail, node 2 will not receive
// any more gossip messages. After T_cleanup, node 2 will suspect node 3 to
// have failed even if it is not true." Node 3 keeps hearing from node 2
// and suspects only the crashed hosts.
func TestPaperBRRExample(t *testing.T) {
	r, sc := e1(t, nil)
	var by2, by3 []core.Rank
	for _, e := range r.Declarations {
		if !sc.Live(e.X, e.Tick) {
			continue
		}
		switch e.By {
		case 2:
			by2 = append(by2, e.X)
		case 3:
			by3 = append(by3, e.X)
		}
	}
	if len(by2) != 1 || by2[0] != 3 || len(by3) != 0 {
		t.Errorf("false declarations: by node 2 %v (want [p3]), by node 3 %v (want none)", by2, by3)
	}
}

// TestPaperBRRExamplePing: the consensus phase of §5.3 turns the false
// suspicion into a PING that node 3 answers: node 3 is never declared, but
// node 2 keeps suspecting (and pinging) it, since no gossip reaches node 2.
func TestPaperBRRExamplePing(t *testing.T) {
	r, sc := e1(t, func(c *fd.Config) { c.Ping = true })
	susp := 0
	for _, e := range r.Declarations {
		if sc.Live(e.X, e.Tick) {
			t.Errorf("live host declared: %+v", e)
		}
	}
	for _, e := range r.Suspicions {
		if e.By == 2 && e.X == 3 {
			susp++
		}
	}
	if susp < 2 || r.Pings == 0 {
		t.Errorf("node 2 suspected node 3 %d times with %d pings, want repeated suspicions", susp, r.Pings)
	}
}
