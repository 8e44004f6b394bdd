package gossipfd

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// worlds collects snapshots of round-model runs, messages in flight
// included, with crashes and the ping phase.
func worlds(t *testing.T, v fd.Variant, n int) []World {
	t.Helper()
	var out []World
	cfg := fd.Config{N: n, Variant: v, TGossip: RoundTicks, Cleanup: 2, Ping: true, PingTimeout: 4}
	for g := 1; g <= 12; g++ {
		sc := SimConfig{Node: cfg, DelayMin: 1, DelayMax: 3, Seed: 5, Rounds: g,
			Crash: map[core.Rank]uint64{1: 3 * RoundTicks, 2: 5*RoundTicks + 2}}
		r, err := Simulate(sc)
		if err != nil {
			t.Fatal(err)
		}
		w := World{Nodes: r.Nodes, InFlight: r.InFlight}
		for x := range core.Rank(n) {
			if !sc.Live(x, uint64(g)*RoundTicks) {
				w.Dead.Add(x)
			}
		}
		out = append(out, w)
	}
	return out
}

// TestCanonicalIsCanonical: idempotent, and the same representative for
// every rotation of a world.
func TestCanonicalIsCanonical(t *testing.T) {
	for _, v := range []fd.Variant{fd.RR, fd.BRR, fd.DBRR} {
		for _, n := range []int{4, 5, 7} {
			for _, w := range worlds(t, v, n) {
				c, _ := Canonical(w)
				want := string(c.Encode(nil))
				if cc, _ := Canonical(c); string(cc.Encode(nil)) != want {
					t.Fatalf("%v n=%d: Canonical is not idempotent", v, n)
				}
				for k := range n {
					if r, _ := Canonical(w.Rotate(k)); string(r.Encode(nil)) != want {
						t.Fatalf("%v n=%d: rotation by %d changes the representative", v, n, k)
					}
				}
			}
		}
	}
}

// TestCanonicalSeparatesClasses: two worlds that are not rotations of each
// other (different crash sets up to rotation) keep different
// representatives.
func TestCanonicalSeparatesClasses(t *testing.T) {
	ws := worlds(t, fd.BRR, 5)
	a, _ := Canonical(ws[len(ws)-1])
	b, _ := Canonical(ws[len(ws)-2])
	if string(a.Encode(nil)) == string(b.Encode(nil)) {
		t.Error("worlds of rounds 11 and 12 share a representative")
	}
}

// TestSymmetryKeepsVerdicts: the smallest safe T_cleanup computed over the
// crash sets containing host 0 equals the one over every crash set.
func TestSymmetryKeepsVerdicts(t *testing.T) {
	for _, v := range []fd.Variant{fd.RR, fd.BRR, fd.DBRR} {
		for _, n := range []int{4, 5, 6} {
			for k := 1; k <= 2; k++ {
				a, err := minCleanup(v, n, k, 0, true)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := minCleanup(v, n, k, 0, false)
				if a.MinCleanup != b.MinCleanup || a.Runs*n != b.Runs*k {
					t.Errorf("%v n=%d k=%d: with symmetry %d (%d runs), without %d (%d runs)", v, n, k, a.MinCleanup, a.Runs, b.MinCleanup, b.Runs)
				}
			}
		}
	}
}

func TestSymmetryReduction(t *testing.T) {
	raw, canon, err := SymmetryReduction(fd.BRR, 6, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("BRR n=6, 2 crashes, 8 rounds: %d worlds, %d up to rotation", raw, canon)
	if canon >= raw || canon*6 < raw {
		t.Errorf("%d worlds, %d classes: want fewer classes, at least a sixth", raw, canon)
	}
}
