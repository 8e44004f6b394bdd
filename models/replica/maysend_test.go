package replica

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// relationModel builds `ftcheck check replica ARGS` and the MaySend
// relation its builder installs.
func relationModel(t *testing.T, args string) (*Model, func(w *env.World, p, r core.Rank) bool) {
	t.Helper()
	fs := flag.NewFlagSet("replica", flag.ContinueOnError)
	f := bindReplica(fs)
	if err := fs.Parse(strings.Fields(args)); err != nil {
		t.Fatal(err)
	}
	p, err := f.params()
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.model(p)
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	if f.fd == "perfect" {
		return m, maySend(m.Config.Layout, m.Config.Programs, p.Crashes)
	}
	return m, stackMaySend(m.Config.Layout, m.Config.Programs)
}

// TestMaySendSound checks the replica relations on every reachable
// transition (modeltest.CheckMaySend: every DATA, COMMIT, GOSSIP, PING and
// PONG sent was allowed before its step, and a pair ruled out stays ruled
// out): on the perfect detector for every program, three replicas, an
// unordered network, rank 0 replicated and every mutant; on the gossip
// stack (BRR and DBRR, a false declaration included: --cleanup 1 without
// the ping phase). The relation must rule pairs out somewhere.
func TestMaySendSound(t *testing.T) {
	var cases []string
	for _, prog := range ProgramNames {
		procs := 2
		if prog == "mid-example" || prog == AnySourceReply {
			procs = 3
		}
		cases = append(cases, fmt.Sprintf("--program %s --procs %d", prog, procs))
	}
	// any-source-reply (the last) with a crash passes the check's bound
	// of 60,000 states: without one.
	cases[len(cases)-1] += " --crashes 0"
	cases = append(cases, "--crashes 0", "--degree 3 --crashes 1", "--network unordered", "--replicate-rank0 --crashes 1",
		"--fd brr", "--fd dbrr --crashes 0", "--fd brr --cleanup 1 --ping=false",
		"--fd brr --mutant non-master-sends")
	for _, m := range sm.Mutants {
		cases = append(cases, "--mutant "+string(m))
	}
	for _, args := range cases {
		m, rel := relationModel(t, args)
		rep := modeltest.CheckMaySend(t, m.Model, 60_000, rel)
		if rep.Sends == 0 || rep.Ruled == 0 {
			t.Errorf("%s: %d sends, %d pairs ruled out: the check proves nothing", args, rep.Sends, rep.Ruled)
		}
		t.Logf("%-45s %6d states, %6d sends, %8d (world, p, r) ruled out", args, rep.States, rep.Sends, rep.Ruled)
	}
}

// TestMaySendCheckCatches: the check fails a relation that forgets the
// take-over (a new master's re-sends and re-commits), so TestMaySendSound
// can fail.
func TestMaySendCheckCatches(t *testing.T) {
	m, _ := relationModel(t, "--degree 3 --crashes 1")
	noTakeOver := func(w *env.World, p, r core.Rank) bool {
		n := w.Node(p).(*sm.Node)
		j, _, _ := m.Config.Layout.Of(r)
		if n.HasOutbound(r) {
			return true
		}
		for _, in := range m.Config.Programs[n.Logical()][n.PC():] {
			if in.Op == sm.OpSend && (in.Peer == j || n.Logical() == j) {
				return true
			}
		}
		return false
	}
	rec := &modeltest.ErrCounter{TB: t}
	modeltest.CheckMaySend(rec, m.Model, 60_000, noTakeOver)
	if rec.Errs == 0 {
		t.Fatal("a relation without the take-over passed the check")
	}
}

// TestStackInvariantsStable: the stack's invariants marked Stable are: on
// every reachable transition other than a Crash, a violation stays one.
// Each configuration violates the property, so the check is not vacuous.
func TestStackInvariantsStable(t *testing.T) {
	for _, c := range []struct{ args, prop string }{
		{"--fd brr --cleanup 1 --ping=false", NoFalseDeclaration},
		{"--fd brr --cleanup 1 --ping=false", OneMaster},
		{"--fd brr --mutant non-master-sends --crashes 0", NoDuplicateSends},
	} {
		m, _ := relationModel(t, c.args)
		var prop checker.Property[*env.World]
		for _, p := range m.Properties() {
			if p.Name == c.prop {
				prop = p
			}
		}
		if !prop.Stable {
			t.Fatalf("%s: %s is not marked Stable", c.args, c.prop)
		}
		rep := modeltest.CheckStable(t, m.Model, 60_000, prop.Check)
		if rep.Violating == 0 || rep.Withdrawn != 0 {
			t.Errorf("%s, %s: %d transitions from a violation, %d withdraw it (first: %s)", c.args, c.prop, rep.Violating, rep.Withdrawn, rep.Example)
		}
		t.Logf("%-45s %-20s %6d states, %6d transitions from a violation, none withdraws it", c.args, c.prop, rep.States, rep.Violating)
	}
}
