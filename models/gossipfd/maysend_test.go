package gossipfd

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	"github.com/ftkernel/ftkernel/registry"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// buildEnv builds `ftcheck check gossipfd --timing bounded ARGS`.
func buildEnv(t *testing.T, args string) *env.Model {
	t.Helper()
	m, ok := registry.EnvModel(modeltest.Build(t, "gossipfd", append([]string{"--timing", "bounded"}, strings.Fields(args)...)...))
	if !ok {
		t.Fatalf("gossipfd --timing bounded %s: not an env model", args)
	}
	return m
}

// property returns m's property called name.
func property(t *testing.T, m *env.Model, name string) checker.Property[*env.World] {
	t.Helper()
	for _, p := range m.Properties() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("%s: no property %q", m.Name(), name)
	return checker.Property[*env.World]{}
}

// TestMaySendSound checks maySend on every reachable transition of the
// bounded-delay model (modeltest.CheckMaySend: every GOSSIP, PING and PONG
// sent was allowed before its step, and a pair ruled out stays ruled out),
// for each variant, both routings, without the ping phase, and every
// mutant; and that the relation rules pairs out (it is not "everyone").
func TestMaySendSound(t *testing.T) {
	cases := []string{"", "--variant rr", "--variant dbrr", "--variant random --cleanup 3", "--routing live",
		"--ping=false", "--crashes 2 --max-rounds 6", "--on-pong withdraw", "--n 5 --max-rounds 5"}
	for _, m := range fd.Mutants {
		cases = append(cases, "--mutant "+string(m))
	}
	for _, args := range cases {
		m := buildEnv(t, args)
		rep := modeltest.CheckMaySend(t, m, 60_000, maySend)
		if rep.Sends == 0 || rep.Ruled == 0 {
			t.Errorf("%s: %d sends, %d pairs ruled out: the check proves nothing", args, rep.Sends, rep.Ruled)
		}
		t.Logf("%-40s %6d states, %6d sends, %8d (world, p, r) ruled out", args, rep.States, rep.Sends, rep.Ruled)
	}
}

// TestAccuracyStable: accuracy (a live host declared failed) is Stable in
// checker's sense, which persistent sets need: on every reachable
// transition other than a Crash, a violation stays a violation
// (declared only grows). The configurations violate it (without the ping
// phase a suspicion is a declaration), so the check is not vacuous.
func TestAccuracyStable(t *testing.T) {
	for _, args := range []string{"--ping=false --mutant brr-offset-2r", "--cleanup 1 --ping=false", "--cleanup 1 --ping=false --crashes 2 --max-rounds 5"} {
		m := buildEnv(t, args)
		acc := property(t, m, "accuracy")
		if !acc.Stable {
			t.Fatalf("%s: accuracy is not marked Stable", args)
		}
		rep := modeltest.CheckStable(t, m, 60_000, acc.Check)
		if rep.Violating == 0 || rep.Withdrawn != 0 {
			t.Errorf("%s: %d transitions from a violation, %d withdraw it (first: %s)", args, rep.Violating, rep.Withdrawn, rep.Example)
		}
		t.Logf("%-50s %6d states, %6d transitions from a violation, none withdraws it", args, rep.States, rep.Violating)
	}
}

// TestNotStable: two properties are not Stable, so they are not marked;
// a run that checks one is not reduced (checker refuses), and the reduction
// is measured with accuracy alone. no-false-suspicion: a pending suspicion
// of a live host is withdrawn by a fresher GOSSIP (merge) or a PONG
// (recvPong), and the violation with it. completeness (a bounded response):
// a host past its bound round without the declaration is a violation that
// ends when the declaration comes (here with a bound of one round, shorter
// than T_cleanup).
func TestNotStable(t *testing.T) {
	for _, c := range []struct{ args, prop string }{
		{"--mutant brr-offset-2r", "no-false-suspicion"},
		{"--detect-bound 1", "completeness"},
	} {
		m := buildEnv(t, c.args)
		p := property(t, m, c.prop)
		if p.Stable {
			t.Fatalf("%s is marked Stable", c.prop)
		}
		rep := modeltest.CheckStable(t, m, 60_000, p.Check)
		if rep.Withdrawn == 0 {
			t.Fatalf("%s (%s): no violation is ever withdrawn (%d transitions from a violation)", c.prop, c.args, rep.Violating)
		}
		t.Logf("%s: %d of %d transitions from a violation withdraw it, first: %s", c.prop, rep.Withdrawn, rep.Violating, rep.Example)
	}
}

// TestMaySendCheckCatches: the check behind TestMaySendSound fails a
// relation that knows only the gossip partners (no PING, no PONG), and one
// that says nobody sends, so it can fail.
func TestMaySendCheckCatches(t *testing.T) {
	gossipOnly := func(w *env.World, p, r core.Rank) bool { return w.Node(p).(*fd.Node).MayGossipTo(r) }
	nobody := func(*env.World, core.Rank, core.Rank) bool { return false }
	for name, rel := range map[string]func(*env.World, core.Rank, core.Rank) bool{"gossip only": gossipOnly, "nobody": nobody} {
		rec := &modeltest.ErrCounter{TB: t}
		modeltest.CheckMaySend(rec, buildEnv(t, "--mutant brr-offset-2r"), 60_000, rel)
		if rec.Errs == 0 {
			t.Errorf("the relation %q passed the check", name)
		}
	}
}
