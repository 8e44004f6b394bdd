package gossipfd

import "testing"

// e1 is the paper's §5.1 BRR example: n = 4, nodes 0 and 1
// crash before round 9, T_cleanup = 4 rounds; it returns the world after 30
// more rounds.
func e1(t *testing.T, cfg *Config) *world {
	t.Helper()
	w := newWorld(t, cfg)
	w.rounds(8)
	w.dead[0], w.dead[1] = true, true
	w.rounds(30)
	return w
}

// TestBRRFalseSuspicion (§5.1): "if node 0 and 1 fail, node 2 will not
// receive any more gossip messages. After T_cleanup, node 2 will suspect
// node 3 to have failed even if it is not true." Without the ping phase the
// suspicion is a declaration; node 3, which still hears from node 2, does
// not suspect node 2.
func TestBRRFalseSuspicion(t *testing.T) {
	w := e1(t, &Config{N: 4, Variant: BRR, TGossip: 4, Cleanup: 4})
	if !w.nodes[2].Declared().Has(3) {
		t.Errorf("node 2 declared %v, want node 3 among them (the paper's false suspicion)", w.nodes[2].Declared())
	}
	if w.nodes[3].Suspects(2) {
		t.Error("node 3 suspects node 2, which gossips to it every other round")
	}
	// The false suspicion comes within T_cleanup + 1 rounds of the last
	// gossip node 2 received (round 8, from node 1 or 0).
	if g, ok := w.suspectedBy(2, 3); !ok || g > 8+4+1 {
		t.Errorf("node 2 suspects node 3 in round %d (%v), want by round 13", g, ok)
	}
}

// TestBRRFalseSuspicionPingPhase: with the consensus phase of §5.3, node 3
// answers node 2's PING (the link 2→3 is direct), so node 3 is never
// declared; but node 2 still hears no gossip, so it suspects node 3 again
// every T_cleanup + 1 rounds (PongRefresh) or every round
// (PongWithdrawOnly). Under RouteLive node 2 re-routes to node 3 once it has
// declared 0 and 1, and the suspicions stop.
func TestBRRFalseSuspicionPingPhase(t *testing.T) {
	base := Config{N: 4, Variant: BRR, TGossip: 4, Cleanup: 4, Ping: true, PingTimeout: 3}
	count := func(w *world) int {
		k := 0
		for _, e := range w.suspicions[2] {
			if e[1] == 3 {
				k++
			}
		}
		return k
	}
	refresh := e1(t, &base)
	withdraw := base
	withdraw.OnPong = PongWithdrawOnly
	wo := e1(t, &withdraw)
	live := base
	live.Routing = RouteLive
	lv := e1(t, &live)
	for name, w := range map[string]*world{"refresh": refresh, "withdraw-only": wo, "route-live": lv} {
		if w.nodes[2].Declared().Has(3) {
			t.Errorf("%s: node 3 declared despite answering the ping", name)
		}
		if !w.nodes[2].Declared().Has(0) || !w.nodes[2].Declared().Has(1) {
			t.Errorf("%s: node 2 declared %v, want 0 and 1", name, w.nodes[2].Declared())
		}
	}
	if a, b, c := count(refresh), count(wo), count(lv); !(c == 1 && a > c && b > a) {
		t.Errorf("suspicions of node 3 by node 2: refresh %d, withdraw-only %d, route-live %d; want route-live 1 < refresh < withdraw-only", a, b, c)
	}
}

// TestDBRRAndRRContrast (the §5.1 example's contrasts): with the same crashes
// neither DBRR nor RR suspects a live node: node 2 hears from node 3 in
// DBRR's counter-clockwise half and in RR's round 3.
func TestDBRRAndRRContrast(t *testing.T) {
	for _, v := range []Variant{DBRR, RR} {
		w := e1(t, &Config{N: 4, Variant: v, TGossip: 4, Cleanup: 4})
		for _, s := range []int{2, 3} {
			if d := w.nodes[s].Declared(); d.Len() != 2 || !d.Has(0) || !d.Has(1) {
				t.Errorf("%v: node %d declared %v, want exactly {0, 1}", v, s, d)
			}
		}
	}
}
