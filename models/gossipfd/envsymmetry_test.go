package gossipfd

import (
	"bytes"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// envEntry is one distinct message in flight from one host to another, as
// env's Deliver operand I counts them: (encoding, deadline offset).
type envEntry struct {
	enc string
	d   int32
}

// envEntries lists the distinct messages in flight from q to p in w, in
// the order Deliver's I indexes them.
func envEntries(w *env.World, p, q core.Rank) []envEntry {
	var out []envEntry
	dl := w.Deadlines()
	for i, e := range w.InFlight() {
		if e.To != p || e.From != q {
			continue
		}
		x := envEntry{string(e.Msg.AppendBinary(nil)), dl[i]}
		if len(out) == 0 || out[len(out)-1] != x {
			out = append(out, x)
		}
	}
	return out
}

// rotateEnvAction is the action of the world w2 = w renamed by s ↦ s+c
// that a is in w: ranks rotated, a ping timer's id rotated, a Deliver's
// message index looked up again (the rotated table sorts differently).
func rotateEnvAction(t *testing.T, w, w2 *env.World, a checker.Action, c int) checker.Action {
	t.Helper()
	n := w.N()
	r := func(x int32) int32 { return int32((int(x) + c) % n) }
	switch a.Kind {
	case env.Deliver, env.Lose:
		e := envEntries(w, core.Rank(a.P), core.Rank(a.Q))[a.I]
		m, err := fd.DecodeMessage([]byte(e.enc), n)
		if err != nil {
			t.Fatal(err)
		}
		want := envEntry{string(fd.RotateMessage(m, c, n).AppendBinary(nil)), e.d}
		i := slices.Index(envEntries(w2, core.Rank(r(a.P)), core.Rank(r(a.Q))), want)
		if i < 0 {
			t.Fatalf("the rotated message of %v is not in flight in the rotated world", a)
		}
		return checker.Action{Kind: a.Kind, P: r(a.P), Q: r(a.Q), I: int32(i)}
	case env.Detect:
		return checker.Action{Kind: a.Kind, P: r(a.P), Q: r(a.Q), I: a.I}
	case env.Crash, env.Call:
		return checker.Action{Kind: a.Kind, P: r(a.P), Q: a.Q, I: a.I}
	case env.Fire:
		return checker.Action{Kind: a.Kind, P: r(a.P), Q: a.Q, I: int32(fd.RotateTimer(uint64(a.I), c, n))}
	}
	return a
}

func envModel(t *testing.T, args string) SymmetricEnv {
	t.Helper()
	m, ok := registry.EnvModel(build(t, strings.Fields(args)...))
	if !ok {
		t.Fatalf("%s: not an env model", args)
	}
	return SymmetricEnv{m}
}

func propVerdicts(m SymmetricEnv, w *env.World) string {
	var out []string
	for _, p := range m.Properties() {
		if p.Kind == checker.Transition {
			continue // checked on steps, not worlds
		}
		if err := p.Check(w); err != nil {
			out = append(out, p.Name)
		}
	}
	return strings.Join(out, ",")
}

// TestEnvCanonicalIsCanonical walks, in lock step, one run of the
// bounded-delay model and its n − 1 rotations (each action rotated, which
// must be enabled in the rotated world), and checks at every step: the
// rotation RotatedKey computes is the real rotated world (RotatedKey(w, c)
// = RotatedKey(w_c, 0)); EncodeCanonical is the same for every rotation;
// the representative is the key of a member of the class and is its own
// representative (idempotent); properties, quiescence and the number of
// enabled actions agree. Seeded walks, crashes included, ping phase on
// and off, DBRR, BRR and RR.
func TestEnvCanonicalIsCanonical(t *testing.T) {
	for _, args := range []string{
		"--timing bounded --variant dbrr --n 4 --crashes 2 --max-rounds 10 --detect-bound 6",
		"--timing bounded --variant brr --n 4 --crashes 2 --cleanup 4 --ping=false --max-rounds 8",
		"--timing bounded --variant rr --n 5 --crashes 1 --cleanup 4 --max-rounds 8 --delta 1",
		"--timing bounded --variant dbrr --n 5 --crashes 1 --cleanup 3 --ping=false --delta 3 --max-rounds 6",
	} {
		m := envModel(t, args)
		n := m.N()
		rng := rand.New(rand.NewPCG(12, uint64(n)))
		steps := 0
		for walk := range 6 {
			ws := make([]*env.World, n) // ws[c]: the run renamed by c
			for c := range ws {
				ws[c] = m.Init()[0]
			}
			for !m.Quiescent(ws[0]) {
				canon := m.EncodeCanonical(nil, ws[0])
				member := false
				for c, w := range ws {
					if got, want := RotatedKey(nil, ws[0], c), RotatedKey(nil, w, 0); !bytes.Equal(got, want) {
						t.Fatalf("%s walk %d step %d: RotatedKey(w, %d) is not the rotated world's key", args, walk, steps, c)
					}
					if !bytes.Equal(m.EncodeCanonical(nil, w), canon) {
						t.Fatalf("%s walk %d step %d: the representative changes under rotation %d", args, walk, steps, c)
					}
					if bytes.Equal(RotatedKey(nil, w, 0), canon) {
						member = true
						if !bytes.Equal(m.EncodeCanonical(nil, w), canon) {
							t.Fatalf("%s: the representative is not its own representative", args)
						}
					}
					if propVerdicts(m, w) != propVerdicts(m, ws[0]) || m.Quiescent(w) != m.Quiescent(ws[0]) ||
						len(m.Actions(w, nil)) != len(m.Actions(ws[0], nil)) {
						t.Fatalf("%s walk %d step %d: rotation %d changes a verdict, quiescence or the enabled actions", args, walk, steps, c)
					}
				}
				if !member {
					t.Fatalf("%s walk %d step %d: the representative is no rotation of the world", args, walk, steps)
				}
				acts := m.Actions(ws[0], nil)
				a := acts[rng.IntN(len(acts))]
				for c := n - 1; c >= 0; c-- {
					ac := rotateEnvAction(t, ws[0], ws[c], a, c)
					if !slices.Contains(m.Actions(ws[c], nil), ac) {
						t.Fatalf("%s: %v rotated by %d, %v, is not enabled in the rotated world", args, a, c, ac)
					}
					next, err := m.Apply(ws[c], ac)
					if err != nil {
						t.Fatal(err)
					}
					ws[c] = next
				}
				steps++
			}
		}
		t.Logf("%s: %d lock-step states, %d rotations each", args, steps, n)
	}
}

// TestEnvKeyDeterminesWorld: over every reachable world of a small
// bounded-delay model, RotatedKey(w, 0) and env's own encoding determine
// each other (the key captures every field), and the number of distinct
// representatives is the state count of the search with symmetry.
func TestEnvKeyDeterminesWorld(t *testing.T) {
	const args = "--timing bounded --variant dbrr --n 4 --crashes 1 --cleanup 3 --ping=false --max-rounds 5 --detect-bound 4"
	m := envModel(t, args)
	encToKey, keyToEnc, canon := map[string]string{}, map[string]string{}, map[string]bool{}
	queue := m.Init()
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		e := string(m.Encode(nil, w))
		if _, seen := encToKey[e]; seen {
			continue
		}
		k := string(RotatedKey(nil, w, 0))
		if prev, ok := keyToEnc[k]; ok && prev != e {
			t.Fatal("two distinct worlds share a key")
		}
		encToKey[e], keyToEnc[k] = k, e
		canon[string(m.EncodeCanonical(nil, w))] = true
		for _, a := range m.Actions(w, nil) {
			next, err := m.Apply(w, a)
			if err != nil {
				t.Fatal(err)
			}
			queue = append(queue, next)
		}
	}
	res := checker.Search[*env.World](m, checker.Options{Workers: 1, Symmetry: true})
	if !res.Symmetry || int(res.States) != len(canon) {
		t.Errorf("symmetry %v: %d states, %d distinct representatives", res.Symmetry, res.States, len(canon))
	}
	plain := checker.Search[*env.World](m, checker.Options{Workers: 1})
	if int(plain.States) != len(encToKey) {
		t.Errorf("%d states without symmetry, %d worlds enumerated", plain.States, len(encToKey))
	}
	t.Logf("%s: %d worlds, %d up to rotation", args, len(encToKey), len(canon))
}

// TestEnvSymmetryKeepsVerdicts: with and without --symmetry, the
// bounded-delay check finds the same violated properties with the same
// shortest counterexample lengths, or holds in both, on configurations
// with every verdict; symmetry never visits more states. The counts are
// the ones docs/gossipfd.md quotes.
func TestEnvSymmetryKeepsVerdicts(t *testing.T) {
	for _, c := range []struct {
		args     string
		verdicts map[string]int
		plain    int64
		sym      int64
	}{
		{"--variant brr --n 4 --crashes 2 --cleanup 4 --ping=false --max-rounds 8", map[string]int{"accuracy": 35, "no-false-suspicion": 35}, 45457, 11638},
		{"--variant dbrr --n 4 --crashes 1 --max-rounds 12 --detect-bound 9", map[string]int{}, 10585, 2715},
		{"--variant dbrr --n 4 --crashes 1 --max-rounds 12 --detect-bound 8", map[string]int{"completeness": 95}, 10585, 2715},
		{"--variant dbrr --n 4 --crashes 1 --max-rounds 12 --detect-bound 9 --mutant never-suspect", map[string]int{"completeness": 90}, 10385, 2665},
		{"--variant dbrr --n 4 --crashes 1 --ping=false --delta 1 --max-rounds 8 --cleanup 2 --detect-bound 5", map[string]int{"accuracy": 27, "no-false-suspicion": 27}, 5161, 1337},
		{"--variant rr --n 5 --crashes 1 --cleanup 5 --max-rounds 10 --detect-bound 8", map[string]int{"completeness": 115}, 17883, 3627},
	} {
		r := build(t, strings.Fields("--timing bounded "+c.args)...)
		var states [2]int64
		for i, sym := range []bool{false, true} {
			v, res := verdicts(r, sym)
			if res.Err != nil || res.Symmetry != sym {
				t.Fatalf("%s sym=%v: %v, symmetry used %v", c.args, sym, res.Err, res.Symmetry)
			}
			if !maps.Equal(v, c.verdicts) {
				t.Errorf("%s sym=%v: %v, want %v", c.args, sym, v, c.verdicts)
			}
			states[i] = res.States
		}
		if states[0] != c.plain || states[1] != c.sym {
			t.Errorf("%s: %d states, %d with symmetry; docs: %d, %d", c.args, states[0], states[1], c.plain, c.sym)
		}
		t.Logf("%s: %d states, %d with symmetry", c.args, states[0], states[1])
	}
}
