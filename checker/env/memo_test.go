package env

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	"github.com/google/go-cmp/cmp"
)

// memoOff turns every memo of m off (before its first use): each Decode
// decodes every process, node and message, each Apply steps its node, and
// each node state is interned alone.
func memoOff(m *Model) {
	m.procs.bits, m.states.bits, m.steps.bits, m.msgs.bits = 0, 0, 0, 0
}

// TestMemoMatches: a memo returns only values its caller accepts, forgets
// without error, and holds nothing at 0 bits. With one bit (two slots) and
// every value under the same hash, each lookup must still find its own
// value or nothing.
func TestMemoMatches(t *testing.T) {
	type v struct{ k int }
	c := &memo[v]{bits: 1}
	stored := map[int]bool{}
	for k := range 10 {
		c.put(7, &v{k})
		stored[k] = true
	}
	found := 0
	for k := range 10 {
		got := c.get(7, func(x *v) bool { return x.k == k })
		if got != nil {
			found++
			if got.k != k {
				t.Fatalf("lookup of %d gave %d", k, got.k)
			}
		}
	}
	if found == 0 || found > 2 {
		t.Fatalf("%d of 10 values found in a two-slot memo, want 1 or 2", found)
	}
	off := &memo[v]{}
	off.put(7, &v{1})
	if off.get(7, func(*v) bool { return true }) != nil {
		t.Fatal("a memo of 0 bits returned a value")
	}
}

// TestMemoizedWalks: a model with its memos (interned node states,
// memoized steps, the Decode caches) and one without follow the same
// random runs of every codec toy and reach, at each step, worlds with the
// same encoding, fingerprint, effects, actions and quiescence, and the
// same decoded worlds, decoded twice (the second time from the caches);
// the memos must be used (hits counted).
func TestMemoizedWalks(t *testing.T) {
	for name, cfg := range codecConfigs() {
		t.Run(name, func(t *testing.T) {
			m, ref := mustNew(t, cfg), mustNew(t, cfg)
			memoOff(ref)
			r := rand.New(rand.NewPCG(5, 5))
			steps := 0
			for range 40 {
				k := r.IntN(len(m.init))
				w, v := m.Init()[k], ref.Init()[k]
				for range 30 {
					as := m.Actions(w, nil)
					if !slices.Equal(as, ref.Actions(v, nil)) {
						t.Fatalf("%v: actions differ", w)
					}
					if len(as) == 0 {
						break
					}
					a := as[r.IntN(len(as))]
					nw, err := m.Apply(w, a)
					nv, rerr := ref.Apply(v, a)
					if (err == nil) != (rerr == nil) {
						t.Fatalf("%v: Apply errors differ: %v / %v", a, err, rerr)
					}
					if err != nil {
						break // the toys' deliberate failures
					}
					steps++
					compareWorlds(t, m, ref, nw, nv)
					w, v = nw, nv
				}
			}
			if steps < 100 {
				t.Fatalf("only %d steps compared", steps)
			}
			if memoSteps(m) == 0 {
				t.Fatal("no memoized step is in use: the memo is not exercised")
			}
		})
	}
}

// compareWorlds fails unless w (of m) and v (of ref) agree on everything
// the search reads, directly and after Decode (twice for m).
func compareWorlds(t *testing.T, m, ref *Model, w, v *World) {
	t.Helper()
	we, ve := m.Encode(nil, w), ref.Encode(nil, v)
	if !bytes.Equal(we, ve) || m.Fingerprint(w) != ref.Fingerprint(v) {
		t.Fatalf("after %v: encodings or fingerprints differ", w.LastAction())
	}
	if !bytes.Equal(we, encodeFresh(m, w)) {
		t.Fatalf("after %v: Encode differs from a fresh encoding", w.LastAction())
	}
	if m.Quiescent(w) != ref.Quiescent(v) || !cmp.Equal(w.LastEffects(), v.LastEffects()) {
		t.Fatalf("after %v: quiescence or effects differ", w.LastAction())
	}
	dv, err := ref.Decode(ve)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		dw, err := m.Decode(we)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(dv, dw, worldCmp...); diff != "" {
			t.Fatalf("decoded worlds differ (-uncached +cached):\n%s", diff)
		}
		if !bytes.Equal(m.Encode(nil, dw), we) || m.Fingerprint(dw) != m.Fingerprint(w) {
			t.Fatal("a decoded world encodes or fingerprints differently")
		}
	}
}

// memoSteps counts the memoized steps m holds.
func memoSteps(m *Model) int {
	n := 0
	for i := range m.steps.table() {
		if m.steps.slots[i].Load() != nil {
			n++
		}
	}
	return n
}

// TestStepMemoReplaysEffects: a memoized step gives later Applies the
// effects and next node state of the first Step, on a flood toy where
// every process calls and delivers: the states reached twice from one
// world by the same action are equal, and share the memo's state.
func TestStepMemoReplaysEffects(t *testing.T) {
	m := mustNew(t, codecConfigs()["flood"])
	w := m.Init()[0]
	for _, a := range m.Actions(w, nil) {
		x, err := m.Apply(w, a)
		if err != nil {
			t.Fatal(err)
		}
		y, err := m.Apply(w, a)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(m.Encode(nil, x), m.Encode(nil, y)) {
			t.Fatalf("%v applied twice: different worlds", a)
		}
		if a.Kind == Call && x.proc(core.Rank(a.P)).ns != y.proc(core.Rank(a.P)).ns {
			t.Fatalf("%v applied twice: the node states are not shared", a)
		}
	}
}

// TestProcCacheKeepsRanks: processes of different ranks with the same
// bytes (the ticker toy leaves its rank out of its encoding, as ERA's
// node does, and every rank makes the same call) decode to procs and
// nodes of their own rank, however often Decode meets them.
func TestProcCacheKeepsRanks(t *testing.T) {
	cfg := tickerConfig(3, 2)
	cfg.Codec = tickerCodec(2)
	m := mustNew(t, cfg)
	b := m.Encode(nil, m.Init()[0])
	for range 3 {
		d, err := m.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		for p := range core.Rank(3) {
			if me := d.Node(p).(*ticker).me; me != p {
				t.Fatalf("decoded process %v holds the node of %v", p, me)
			}
		}
	}
}
