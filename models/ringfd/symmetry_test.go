package ringfd

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// rotateAction is a, taken in w, as an action of rw, the world w rotated by
// k: ranks rotated; a Deliver's index is that of the rotated message (same
// deadline) among the distinct messages from the rotated sender, in rw's
// order.
func rotateAction(t *testing.T, c *fd.Config, w, rw *env.World, a checker.Action, k int) checker.Action {
	t.Helper()
	r := func(x int32) int32 { return int32(c.RotateRank(core.Rank(x), k)) }
	out := a
	switch a.Kind {
	case env.Tick:
		return a
	case env.Crash, env.Call, env.Fire:
		out.P = r(a.P)
		return out
	case env.Detect:
		out.P, out.Q = r(a.P), r(a.Q)
		return out
	case env.Deliver:
	default:
		t.Fatalf("unexpected action %v", a)
	}
	type key struct {
		msg string
		d   int32
	}
	distinct := func(w *env.World, to, from core.Rank) []key {
		var out []key
		dl := w.Deadlines()
		for i, e := range w.InFlight() {
			if e.To == to && e.From == from {
				k := key{string(e.Msg.AppendBinary(nil)), dl[i]}
				if len(out) == 0 || out[len(out)-1] != k {
					out = append(out, k)
				}
			}
		}
		return out
	}
	src := distinct(w, core.Rank(a.P), core.Rank(a.Q))[a.I]
	m := src.msg
	for _, e := range w.InFlight() {
		if string(e.Msg.AppendBinary(nil)) == m {
			m = string(c.RotateMessage(e.Msg, k).AppendBinary(nil))
			break
		}
	}
	out.P, out.Q = r(a.P), r(a.Q)
	for i, x := range distinct(rw, core.Rank(out.P), core.Rank(out.Q)) {
		if x == (key{m, src.d}) {
			out.I = int32(i)
			return out
		}
	}
	t.Fatalf("rotated message of %v not in flight", a)
	return out
}

// TestSymmetryCanonical: along random walks of the check model (crashes of
// daemons and processes), every world w and every rotation k, the world
// reached by the rotated actions, rw, is a real world whose identity key is
// w's key for k (RotationKey encodes the rotation faithfully; the dynamics
// are rotation symmetric); the canonical key is the same for w and every
// rw (invariant); the world of the least rotation has its own identity key
// as canonical key (idempotent); and equal identity keys mean equal env
// encodings (the key is complete).
func TestSymmetryCanonical(t *testing.T) {
	for _, p := range []CheckParams{
		{N: 4, Procs: 1, Crashes: 2, Delta: 2, Period: 2, Timeout: 5},
		{N: 5, Procs: 2, Crashes: 3, Delta: 1, Period: 2, Timeout: 4, BMG: fd.BMGOMPI, NoSkip: true},
		{N: 3, Procs: 1, Crashes: 2, Delta: 1, Period: 2, Timeout: 4, Network: env.FIFO, Mutant: fd.MutantForwardNever},
	} {
		sm, err := NewSymModel(p)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sm.cfg
		byKey := map[string]string{}
		r := rand.New(rand.NewPCG(uint64(p.N), 3))
		for walk := range 6 {
			w := sm.Init()[0]
			rws := make([]*env.World, p.N)
			for k := range rws {
				rws[k] = w
			}
			for step := 0; step < 120; step++ {
				a, ok := sm.Sample(w, r, nil)
				if !ok {
					break
				}
				if a.Kind == env.Crash && walk%2 == 0 && cfg.IsProcess(core.Rank(a.P)) {
					a.P = int32(cfg.Host(core.Rank(a.P))) // half the walks crash daemons
				}
				for k := range rws {
					rws[k], err = sm.Apply(rws[k], rotateAction(t, cfg, w, rws[k], a, k))
					if err != nil {
						t.Fatalf("%+v k=%d step %d: rotated %v: %v", p, k, step, a, err)
					}
				}
				if w, err = sm.Apply(w, a); err != nil {
					t.Fatal(err)
				}
				kmin, canon := sm.Canonical(w)
				for k, rw := range rws {
					if !bytes.Equal(sm.RotationKey(rw, 0), sm.RotationKey(w, k)) {
						t.Fatalf("%+v step %d: the world rotated by %d is not what RotationKey(w, %d) encodes", p, step, k, k)
					}
					if _, c := sm.Canonical(rw); !bytes.Equal(c, canon) {
						t.Fatalf("%+v step %d: canonical key not invariant under rotation %d", p, step, k)
					}
				}
				if !bytes.Equal(sm.RotationKey(rws[kmin], 0), canon) {
					t.Fatalf("%+v step %d: the least rotation's world is not its own canonical form", p, step)
				}
				for _, x := range []*env.World{w, rws[1]} {
					id, e := string(sm.RotationKey(x, 0)), string(sm.Encode(nil, x))
					if old, ok := byKey[id]; ok && old != e {
						t.Fatalf("%+v: two different worlds share an identity key", p)
					}
					byKey[id] = e
				}
			}
		}
		if len(byKey) < 100 {
			t.Fatalf("%+v: only %d distinct worlds met", p, len(byKey))
		}
	}
}

// TestSymmetryKeepsVerdicts: with and without the rotation symmetry the
// same properties hold, the same mutants are caught by the same
// properties at counterexamples of the same length (BFS: shortest), and the
// symmetric search visits fewer states, at most N times fewer.
func TestSymmetryKeepsVerdicts(t *testing.T) {
	for _, c := range []struct {
		p    CheckParams
		prop string
	}{
		{CheckParams{N: 3, Procs: 1, Crashes: 1, Delta: 1, Period: 2, Timeout: 4}, ""},
		{CheckParams{N: 3, Procs: 1, Crashes: 1, Delta: 1, Period: 2, Timeout: 4, Mutant: fd.MutantNoMending}, PropRingRepair},
		{CheckParams{N: 3, Procs: 1, Crashes: 1, Delta: 1, Period: 2, Timeout: 4, Mutant: fd.MutantObserveSuccessor}, PropAccuracy},
		{CheckParams{N: 3, Procs: 1, Crashes: 1, Delta: 1, Period: 2, Timeout: 4, Mutant: mutant.Name(fd.MutantForwardAlways)}, PropForwardOnce},
	} {
		sm, err := NewSymModel(c.p)
		if err != nil {
			t.Fatal(err)
		}
		var props []string
		if c.prop != "" {
			props = []string{c.prop}
		}
		plain := checker.BFS[*env.World](sm.Model, checker.Options{Workers: 1, Properties: props})
		sym := checker.BFS[*env.World](sm, checker.Options{Workers: 1, Properties: props, Symmetry: true})
		for _, r := range []*checker.Result{plain, sym} {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
		if !sym.Symmetry || len(plain.Violations) != len(sym.Violations) {
			t.Fatalf("%s: %d violations plain, %d under symmetry (used %v)", c.p.Mutant, len(plain.Violations), len(sym.Violations), sym.Symmetry)
		}
		if c.prop == "" {
			if !plain.Complete || !sym.Complete || sym.States >= plain.States || sym.States*int64(c.p.N) < plain.States {
				t.Fatalf("correct detector: %d states plain, %d under symmetry (complete %v, %v)", plain.States, sym.States, plain.Complete, sym.Complete)
			}
			t.Logf("N=%d P=%d F=%d: %d states, %d under symmetry (%.2f×)", c.p.N, c.p.Procs, c.p.Crashes, plain.States, sym.States, float64(plain.States)/float64(sym.States))
			continue
		}
		if len(sym.Violations) == 0 {
			t.Fatalf("%s: not caught", c.p.Mutant)
		}
		a, b := plain.Violations[0], sym.Violations[0]
		if a.Violation.Property != b.Violation.Property || (a.Loop == 0 && len(a.Steps) != len(b.Steps)) {
			t.Errorf("%s: plain %s after %d steps, symmetric %s after %d", c.p.Mutant, a.Violation.Property, len(a.Steps), b.Violation.Property, len(b.Steps))
		}
		if _, err := checker.Replay[*env.World](sm.Model, b); err == nil {
			t.Errorf("%s: the symmetric counterexample does not replay as a violation on the plain model", c.p.Mutant)
		}
		t.Logf("%-32s %s: %d steps plain (%d states), %d under symmetry (%d states)", c.p.Mutant, a.Violation.Property, len(a.Steps), plain.States, len(b.Steps), sym.States)
	}
}

// TestSymmetryKeyComplete: over every reachable world of two small
// models, one with Δ = 2 (messages with different deadlines in flight) and
// a process per daemon, one on the FIFO network (several messages of one
// pair in flight, whose queue order is part of the world), equal identity
// keys (RotationKey for k = 0) mean equal env encodings, and the number of
// distinct canonical keys is at least the number of worlds divided by N
// (each class has at most N members).
func TestSymmetryKeyComplete(t *testing.T) {
	for _, p := range []CheckParams{
		{N: 2, Procs: 1, Crashes: 1, Delta: 2, Period: 2, Timeout: 5},
		{N: 3, Procs: 1, Crashes: 1, Delta: 1, Period: 2, Timeout: 4, Network: env.FIFO, DaemonCrashesOnly: true},
	} {
		sm, err := NewSymModel(p)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		byKey := map[string]string{}
		canon := map[string]bool{}
		queue := sm.Init()
		for _, w := range queue {
			seen[string(sm.Encode(nil, w))] = true
		}
		for len(queue) > 0 {
			w := queue[0]
			queue = queue[1:]
			e := string(sm.Encode(nil, w))
			id := string(sm.RotationKey(w, 0))
			if old, ok := byKey[id]; ok && old != e {
				t.Fatalf("%+v: two different worlds share an identity key: %v", p, w.InFlight())
			}
			byKey[id] = e
			_, c := sm.Canonical(w)
			canon[string(c)] = true
			for _, a := range sm.Actions(w, nil) {
				nw, err := sm.Apply(w, a)
				if err != nil {
					t.Fatal(err)
				}
				if k := string(sm.Encode(nil, nw)); !seen[k] {
					seen[k] = true
					queue = append(queue, nw)
				}
			}
		}
		if len(canon)*p.N < len(seen) || len(canon) >= len(seen) {
			t.Fatalf("%+v: %d worlds, %d classes", p, len(seen), len(canon))
		}
		t.Logf("%+v: %d worlds, %d identity keys, %d rotation classes", p, len(seen), len(byKey), len(canon))
	}
}
