package paxos

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	"github.com/ftkernel/ftkernel/registry"
)

// symCase is one configuration searched with and without the acceptor
// symmetry: the verdicts must agree (the property violated and the
// shortest counterexample's length, or every property holding), and a
// complete symmetric search must visit between plain/A! and plain states.
type symCase struct {
	name string
	p    Params
	prop []string // nil: every property (termination included)
}

func symCases() []symCase {
	base := Params{Proposers: 2, Acceptors: 3, Instances: 1, Delta: 1, Timing: env.BoundedDelay}
	with := func(f func(*Params)) Params { p := base; f(&p); return p }
	return []symCase{
		{"crash", with(func(p *Params) { p.Crashes = 1 }), nil},
		{"loss", with(func(p *Params) { p.Loss = 1 }), nil},
		{"restart-proposer", with(func(p *Params) { p.Crashes, p.Recoveries, p.Crashable = 1, 1, []core.Rank{1} }), nil},
		{"restart-acceptors", with(func(p *Params) { p.Crashes, p.Recoveries, p.Crashable = 1, 1, []core.Rank{2, 3, 4} }), nil},
		{"accept-lower-ballot", with(func(p *Params) {
			p.Instances, p.Compete, p.Mutant = 2, true, mutant.Name("accept-lower-ballot")
		}), nil},
		{"relabel-request", with(func(p *Params) { p.Instances, p.Mutant = 2, mutant.Name("relabel-request") }), []string{"validity"}},
		{"forget-log-on-restart", with(func(p *Params) {
			p.Crashes, p.Recoveries, p.Crashable, p.Mutant = 1, 1, []core.Rank{1}, mutant.Name("forget-log-on-restart")
		}), []string{"integrity"}},
	}
}

// verdict is what a search concluded: "" when every property holds,
// else the property violated and the counterexample's length.
func verdict(t *testing.T, r *checker.Result) (string, int) {
	t.Helper()
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if len(r.Violations) == 0 {
		if !r.Complete {
			t.Fatalf("incomplete without a violation after %d states", r.States)
		}
		return "", 0
	}
	tr := r.Violations[0]
	return tr.Violation.Property, len(tr.Steps)
}

// TestSymmetryAgreesWithPlainSearch is the guard of --symmetry: at small
// bounds (a crash, a loss, a restart of a proposer or of an acceptor, and
// the mutants breadth-first search catches), the symmetric search reaches
// the same verdict as the plain one, with a counterexample of the same
// length, and a complete one visits at most the plain states and at least
// a sixth of them (3! acceptor renamings).
func TestSymmetryAgreesWithPlainSearch(t *testing.T) {
	for _, c := range symCases() {
		t.Run(c.name, func(t *testing.T) {
			plainM, err := NewModel(c.p)
			if err != nil {
				t.Fatal(err)
			}
			symM, err := NewSymModel(c.p)
			if err != nil {
				t.Fatal(err)
			}
			plain := checker.BFS[*env.World](plainM, checker.Options{Properties: c.prop, Workers: 1})
			sym := checker.BFS[*env.World](symM, checker.Options{Properties: c.prop, Workers: 1, Symmetry: true})
			if !sym.Symmetry {
				t.Fatal("the symmetric search did not use the symmetry")
			}
			pp, pn := verdict(t, plain)
			sp, sn := verdict(t, sym)
			if pp != sp || pn != sn {
				t.Fatalf("plain: %q after %d steps; symmetric: %q after %d steps", pp, pn, sp, sn)
			}
			if sym.States > plain.States || sym.States*6 < plain.States {
				t.Fatalf("%d states under symmetry, %d plain: want plain/6 ≤ symmetric ≤ plain", sym.States, plain.States)
			}
			t.Logf("verdict %q (%d steps): %d states plain, %d symmetric", pp, pn, plain.States, sym.States)
		})
	}
}

// TestPermuteRoundTrip: on the worlds of random walks (a crash, a
// restart, a loss), renaming the acceptors by each permutation and back
// gives the world's own encoding; the renamed world's encoding and
// fingerprint are the ones env.Permutation computes without building it;
// and a renaming other than the identity changes some world (the renaming
// is not vacuous).
func TestPermuteRoundTrip(t *testing.T) {
	p := Params{Proposers: 2, Acceptors: 3, Instances: 2, Crashes: 2, Recoveries: 1, Loss: 1, Dup: 1,
		Delta: 1, Timing: env.BoundedDelay}
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	perms := acceptorPerms(p)
	changed := 0
	var acts []checker.Action
	for walk := range 12 {
		w := m.Init()[0]
		for step := 0; step < 80; step++ {
			for _, perm := range perms {
				ren, err := m.NewPermutation(perm)
				if err != nil {
					t.Fatal(err)
				}
				pw, err := m.Permute(w, perm)
				if err != nil {
					t.Fatalf("walk %d step %d: %v", walk, step, err)
				}
				inv := make([]core.Rank, len(perm))
				for r, q := range perm {
					inv[q] = core.Rank(r)
				}
				back, err := m.Permute(pw, inv)
				if err != nil {
					t.Fatal(err)
				}
				orig := m.Encode(nil, w)
				if !bytes.Equal(m.Encode(nil, back), orig) {
					t.Fatalf("walk %d step %d: renaming by %v and back changes the world %v", walk, step, perm, w)
				}
				enc, err := ren.AppendWorld(nil, w)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(enc, m.Encode(nil, pw)) {
					t.Fatalf("walk %d step %d: AppendWorld differs from the renamed world's encoding", walk, step)
				}
				if fp, err := ren.Fingerprint(w); err != nil || fp != m.Fingerprint(pw) {
					t.Fatalf("walk %d step %d: renamed fingerprint %x (%v), the renamed world's %x", walk, step, fp, err, m.Fingerprint(pw))
				}
				if !bytes.Equal(enc, orig) {
					changed++
				}
			}
			acts = m.Actions(w, acts[:0])
			if len(acts) == 0 {
				break
			}
			if w, err = m.Apply(w, acts[rng.IntN(len(acts))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if changed == 0 {
		t.Fatal("no renaming changed any world")
	}
}

// TestSymmetryRefused: --symmetry is refused where the acceptors are not
// interchangeable: some acceptors crashable and not others, or acceptors
// that also learn.
func TestSymmetryRefused(t *testing.T) {
	base := Params{Proposers: 2, Acceptors: 3, Instances: 1, Crashes: 1, Delta: 1, Timing: env.BoundedDelay}
	for _, p := range []Params{
		func() Params { p := base; p.Crashable = []core.Rank{2}; return p }(),
		func() Params { p := base; p.Crashable = []core.Rank{0, 3, 4}; return p }(),
		func() Params { p := base; p.Learners = LearnAll; return p }(),
		func() Params { p := base; p.Learners = LearnAcceptors; return p }(),
	} {
		if _, err := NewSymModel(p); err == nil {
			t.Errorf("crashable %v learners %v: accepted", p.Crashable, p.Learners)
		}
	}
	for _, c := range [][]core.Rank{nil, {0}, {1}, {2, 3, 4}, {0, 2, 3, 4}} {
		p := base
		p.Crashable = c
		if _, err := NewSymModel(p); err != nil {
			t.Errorf("crashable %v: %v", c, err)
		}
	}
	if got := len(acceptorPerms(base)); got != 6 || slices.ContainsFunc(acceptorPerms(base), func(perm []core.Rank) bool { return perm[0] != 0 || perm[1] != 1 }) {
		t.Errorf("%d acceptor permutations (want 3! = 6, fixing p0 and p1)", got)
	}
}

// buildSymmetric builds the check model from ftcheck's flags with
// --symmetry set, as `ftcheck check paxos --symmetry` does.
func buildSymmetric(t *testing.T, args string) registry.Runner {
	t.Helper()
	fs := flag.NewFlagSet("paxos", flag.ContinueOnError)
	fs.Bool("symmetry", true, "")
	b := defineCheck(fs)
	if err := fs.Parse(strings.Fields(args)); err != nil {
		t.Fatal(err)
	}
	r, err := b()
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	if !r.Symmetric() {
		t.Fatalf("%s: the model has no symmetry", args)
	}
	return r
}

// TestSymmetryDocsCounts pins the symmetric searches of docs/paxos.md
// ("Acceptor symmetry"): complete breadth-first searches with every
// property, termination included (costly rows with FTKERNEL_LONG=1).
func TestSymmetryDocsCounts(t *testing.T) {
	for _, c := range []modeltest.Counts{
		{Args: "--instances 1", States: 10237, Transitions: 51622, Depth: 59},
		{Args: "--instances 1 --crashes 0 --loss 1", States: 819, Transitions: 3846, Depth: 40},
		{Args: "--instances 1 --crashes 1 --recoveries 1 --crashable 2-4", States: 13572, Transitions: 73482, Depth: 47},
		{Args: "--instances 2 --crashes 0", States: 149027, Transitions: 1346316, Depth: 62, Long: true},
		{Args: "--instances 1 --crashes 1 --recoveries 1 --loss 1 --crashable coordinator", States: 2495409, Transitions: 17576152, Depth: 87, Long: true},
	} {
		if c.Long && !modeltest.Long() {
			t.Logf("%s: skipped (FTKERNEL_LONG=1 runs it)", c.Args)
			continue
		}
		res := buildSymmetric(t, c.Args).BFS(checker.Options{Symmetry: true, Workers: 1})
		if !res.Symmetry {
			t.Fatalf("%s: the search did not use the symmetry", c.Args)
		}
		modeltest.PinCounts(t, c.Args+" --symmetry", res, "", c.States, c.Transitions, c.Depth)
	}
}
