package ringfd

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// TestMaySendSound checks maySend on every reachable transition
// (modeltest.CheckMaySend: every HB, HBREQUEST and FAULT sent was allowed,
// and a pair ruled out stays ruled out), with two processes per daemon,
// Open MPI's BMG, daemon crashes only, and every mutant (daemon
// crashes only). It rules out the
// processes' sends and a daemon's sends to the processes of other daemons.
func TestMaySendSound(t *testing.T) {
	base := CheckParams{N: 3, Procs: 1, Crashes: 1, Delta: 1, Period: 2, Timeout: 4}
	cases := map[string]CheckParams{"N=3": base}
	p := base
	p.Procs, p.DaemonCrashesOnly = 2, true
	cases["N=3 procs=2 daemon crashes only"] = p
	p = base
	p.BMG = fd.BMGOMPI
	cases["N=3 bmg=ompi"] = p
	p = base
	p.DaemonCrashesOnly = true
	cases["N=3 daemon crashes only"] = p
	for _, mu := range fd.Mutants {
		p = base
		p.Mutant, p.DaemonCrashesOnly = mu, true
		if mu == fd.MutantObserveSuccessor {
			p.N = 2 // over 60,000 states at N = 3, even without crashes
		}
		cases[fmt.Sprintf("N=%d mutant=%s", p.N, mu)] = p
	}
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		p := cases[name]
		m, err := NewCheckModel(p)
		if err != nil {
			t.Fatal(err)
		}
		c, err := fd.Normalize(p.Config())
		if err != nil {
			t.Fatal(err)
		}
		rep := modeltest.CheckMaySend(t, m, 60_000, maySend(&c))
		if rep.Sends == 0 || rep.Ruled == 0 {
			t.Errorf("%s: %d sends, %d pairs ruled out: the check proves nothing", name, rep.Sends, rep.Ruled)
		}
		t.Logf("%-45s %6d states, %6d sends, %8d (world, p, r) ruled out", name, rep.States, rep.Sends, rep.Ruled)
	}
}

// TestForwardOnceReads: forward-at-most-once declares checker.ReadsStep
// (the actor's record before and after and its effects), which lets
// partial-order reduction commute other processes' steps around the
// checked one. Breadth-first search with sleep sets (which trust the
// declaration) must then find the same states and the same verdict as
// without, on the mutants that break the property and on those that do
// not.
func TestForwardOnceReads(t *testing.T) {
	for _, args := range []string{"--n 3", "--n 3 --mutant forward-always", "--n 3 --mutant forward-never", "--n 3 --mutant no-mending", "--n 3 --procs 2 --mutant forward-always"} {
		r := modeltest.Build(t, "ringfd", strings.Fields(args)...)
		opt := checker.Options{Workers: 1, ContinueAfterViolation: true, Properties: []string{PropForwardOnce}}
		a := r.BFS(opt)
		opt.POR = true
		b := r.BFS(opt)
		if a.Err != nil || b.Err != nil {
			t.Fatalf("%s: %v / %v", args, a.Err, b.Err)
		}
		if !b.POR {
			t.Fatalf("%s: not reduced: %s", args, b.PORNote)
		}
		va, vb := modeltest.ViolatedSet(a), modeltest.ViolatedSet(b)
		if a.States != b.States || va != vb || b.Transitions+b.Slept != a.Transitions {
			t.Errorf("%s: %d states {%s} %d generated without sleep sets, %d states {%s} %d generated + %d slept with", args,
				a.States, va, a.Transitions, b.States, vb, b.Transitions, b.Slept)
		}
		t.Logf("%-40s %6d states, generated %7d → %7d, violated {%s}", args, a.States, a.Transitions, b.Transitions, va)
	}
}
