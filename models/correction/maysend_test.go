package correction

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	"github.com/ftkernel/ftkernel/registry"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// sent is one message seen in flight, for the Absorbs checks.
type sent struct {
	from core.Rank
	msg  core.Message
}

// checkRelation explores every world of m breadth first and checks, on
// every transition w → w' (actor p), the claims the may-send relation and
// the absorbed-delivery rule rest on (statemachine/correction targets.go):
//
//   - MaySendTo: if p's node in w says it never sends to r, the step sends
//     nothing to r, and p's node in w' says so too (so, by induction, p
//     never does);
//   - Absorbs: for every message seen in flight anywhere (sender, bytes)
//     that a node absorbs in w, receiving it there is a step with no effect
//     that leaves the node's encoding as it was, and the actor's node in w'
//     absorbs it too;
//   - MayDisturb: if p (or r) is the actor and p's node in w may not
//     disturb r's, every message p sends r in the step is one r's node in
//     w absorbs, and p still may not disturb r in w'.
//
// It returns the number of worlds and of claims found false-free.
func checkRelation(t *testing.T, m *env.Model, maxStates int) (int, int) {
	t.Helper()
	n := m.Init()[0].N()
	var pool []sent
	poolSeen := map[string]bool{}
	node := func(w *env.World, p core.Rank) *corrsm.Node { return w.Node(p).(*corrsm.Node) }
	claims := 0
	expand := func(w *env.World) error {
		for _, e := range w.InFlight() {
			k := fmt.Sprint(e.From, string(e.Msg.AppendBinary(nil)))
			if !poolSeen[k] {
				poolSeen[k] = true
				pool = append(pool, sent{e.From, e.Msg})
			}
		}
		// Absorbs: receiving is a no-op.
		for p := range core.Rank(n) {
			if w.Crashed(p) {
				continue
			}
			for _, s := range pool {
				if !node(w, p).Absorbs(s.from, s.msg) {
					continue
				}
				claims++
				c := node(w, p).Clone()
				effs, err := c.Step(core.Receive(s.from, s.msg), nil)
				if err != nil || len(effs) > 0 || !bytes.Equal(c.AppendBinary(nil), node(w, p).AppendBinary(nil)) {
					t.Fatalf("%v absorbs %v from %v in %v, but receiving it gives %v, %v, %v", p, s.msg, s.from, w, effs, err, c)
				}
			}
		}
		return nil
	}
	step := func(w *env.World, a checker.Action, nw *env.World) error {
		p := nw.LastActor()
		if p != core.NoRank && a.Kind != env.Crash {
			for r := range core.Rank(n) {
				if r == p {
					continue
				}
				before, after := node(w, p), node(nw, p)
				if !before.MaySendTo(r) {
					claims++
					for _, e := range nw.LastEffects() {
						if e.Kind == core.EffSend && e.To == r {
							t.Fatalf("%v said it never sends to %v in %v, then sent %v by %v", p, r, w, e.Msg, a)
						}
					}
					if after.MaySendTo(r) {
						t.Fatalf("%v said it never sends to %v in %v, and may again after %v", p, r, w, a)
					}
				}
				if !before.MayDisturb(node(w, r)) {
					claims++
					for _, e := range nw.LastEffects() {
						if e.Kind == core.EffSend && e.To == r && !node(w, r).Absorbs(p, e.Msg) {
							t.Fatalf("%v said it never disturbs %v in %v, then sent %v by %v", p, r, w, e.Msg, a)
						}
					}
					if after.MayDisturb(node(nw, r)) {
						t.Fatalf("%v said it never disturbs %v in %v, and may after %v", p, r, w, a)
					}
				}
				if !node(w, r).MayDisturb(before) && node(nw, r).MayDisturb(after) {
					t.Fatalf("%v said it never disturbs %v in %v, and may after %v's step %v", r, p, w, p, a)
				}
			}
			for _, s := range pool {
				if node(w, p).Absorbs(s.from, s.msg) && !node(nw, p).Absorbs(s.from, s.msg) {
					t.Fatalf("%v absorbed %v from %v in %v, no longer after %v", p, s.msg, s.from, w, a)
				}
			}
		}
		return nil
	}
	states, err := envtest.ExploreTransitions(m, maxStates, expand, step)
	if err != nil {
		t.Fatalf("%s: %v", m.Name(), err)
	}
	return states, claims
}

// TestMaySendRelation checks the claims of the may-send relation and of
// Absorbs (checkRelation) on every world of small models: checked
// correction with faults, the other corrections, overlapped start, lock-step
// rounds, gossip, and every mutant on checked and on overlapped
// opportunistic correction. CI runs the small ones (a few seconds);
// FTKERNEL_LONG=1 all (four minutes on a loaded machine).
func TestMaySendRelation(t *testing.T) {
	type c struct {
		args string
		long bool
	}
	cases := []c{
		{"--P 3 --faults 1", true},
		{"--P 3 --faults 0 --correction opportunistic", true},
		{"--P 3 --faults 0 --correction optimized --d 2", false},
		{"--P 3 --faults 0 --correction delayed", true},
		{"--P 3 --faults 1 --correction opportunistic --start overlapped", true},
		{"--P 3 --faults 1 --timing rounds", false},
		{"--P 4 --faults 1 --timing rounds", false},
		{"--P 3 --faults 0 --tree gossip --gossip-rounds 2", true},
		{"--P 3 --faults 1 --cover-stop --no-over-root", false},
		{"--P 2 --faults 1", false},
	}
	for _, mut := range corrsm.Mutants {
		cases = append(cases, c{"--P 3 --faults 0 --mutant " + string(mut), true},
			c{"--P 3 --faults 0 --correction opportunistic --d 3 --start overlapped --mutant " + string(mut), true},
			c{"--P 2 --faults 1 --correction opportunistic --d 3 --start overlapped --mutant " + string(mut), false},
			c{"--P 3 --faults 1 --timing rounds --mutant " + string(mut), false})
	}
	for _, tc := range cases {
		if tc.long && !modeltest.Long() {
			continue
		}
		m, ok := registry.EnvModel(build(t, "correction", strings.Fields(tc.args)...))
		if !ok {
			t.Fatal("not an env model")
		}
		states, claims := checkRelation(t, m, 300_000)
		if claims == 0 {
			t.Fatalf("%s: no claim checked", tc.args)
		}
		t.Logf("%-100s %6d worlds, %8d claims hold", tc.args, states, claims)
	}
}
