package gossipfd

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// column is the paper's rules (§5.1, Fig. 11; §5.3) applied to one host
// x's heartbeat entry at every host, in the round model, from the crash
// rounds alone: what each host h must hold of x after a round.
type column struct {
	known, lastInc []uint64 // hb[x] and lastInc[x] at each host
	suspected      []bool   // pending suspicion (ping phase)
	declared       []bool
	// falseSusp: some host suspected x while x was alive (x's PONG then
	// refreshes entries, which the column does not follow).
	falseSusp bool
}

// refColumn computes the column of x after rounds 1 … G, for the crash
// rounds crashed (crashed[s] = c > 0: s runs rounds 1 … c − 1). In round
// g every live host's gossip timer fires: x sets its own entry to g, and
// every host h ≠ x whose entry of x is neither suspected nor declared
// suspects x if g − lastInc[x] > T_cleanup (§5.1); then every live host
// sends its entry (as at the end of round g − 1; x: g) to its destination
// by Eqs. 3–5 (refDest), and a live destination other than x keeps the
// maximum, recording lastInc[x] ← g and withdrawing a pending suspicion
// when it grows (merge); at the end of the round a suspicion still pending
// is a declaration (the ping timer of §5.3; x, dead, sends no PONG).
// Without the ping phase a suspicion is a declaration at once.
func refColumn(c *fd.Config, crashed []int, x core.Rank, G int) *column {
	n := c.N
	col := &column{known: make([]uint64, n), lastInc: make([]uint64, n), suspected: make([]bool, n), declared: make([]bool, n)}
	alive := func(s core.Rank, g int) bool { return crashed[s] == 0 || g < crashed[s] }
	send := make([]uint64, n)
	for g := 1; g <= G; g++ {
		gu := uint64(g)
		if alive(x, g) {
			col.known[x] = gu
		}
		for h := range core.Rank(n) {
			if h == x || !alive(h, g) || col.suspected[h] || col.declared[h] {
				continue
			}
			if gu-col.lastInc[h] > c.Cleanup {
				if alive(x, g) {
					col.falseSusp = true
				}
				if c.Ping {
					col.suspected[h] = true
				} else {
					col.declared[h] = true
				}
			}
		}
		copy(send, col.known)
		for s := range core.Rank(n) {
			if !alive(s, g) {
				continue
			}
			d := refDest(c, s, gu)
			if d == s || d == x || !alive(d, g) || send[s] <= col.known[d] {
				continue
			}
			col.known[d] = send[s]
			col.lastInc[d] = gu
			col.suspected[d] = false
		}
		for h := range core.Rank(n) {
			if col.suspected[h] && alive(h, g) {
				col.suspected[h] = false
				col.declared[h] = true
			}
		}
	}
	return col
}

// suspicionRound is the property suspicion-round: for every crashed host
// x that no host suspected while it was alive, every live host suspects
// and declares x exactly when refColumn says, after every round: not
// before the round lastInc[x] + T_cleanup + 1 (§5.1: "has not increased
// after a certain timeout"), lastInc[x] being the round in which x's
// heartbeat last reached it over the routing of Eqs. 3–5, and in that
// round (§5.3: the ping of a dead host fails within the round).
func (m *CheckModel) suspicionRound(s *RoundState) error {
	for xi, c := range s.Crashed {
		if c == 0 {
			continue
		}
		x := core.Rank(xi)
		col := refColumn(m.node, s.Crashed, x, s.G)
		if col.falseSusp {
			continue
		}
		for h, n := range s.Nodes {
			if s.Crashed[h] != 0 {
				continue
			}
			if got, want := n.Declared().Has(x), col.declared[h]; got != want || n.Suspected().Has(x) != col.suspected[h] {
				return fmt.Errorf("p%d crashed before round %d; after round %d live p%d has declared it: %v, suspects it: %v; §5.1 over Eqs. 3–5 gives declared %v (its heartbeat %d last rose there in round %d, T_cleanup %d)",
					x, c, s.G, h, got, n.Suspected().Has(x), want, col.known[h], col.lastInc[h], m.node.Cleanup)
			}
		}
	}
	return nil
}
