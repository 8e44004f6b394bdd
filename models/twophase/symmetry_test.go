package twophase

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
)

// tlcSymmetryCounts are the distinct states of TwoPhase.tla under
// SYMMETRY Permutations(RM), as TLC counts them with its canonical
// symmetry reduction.
var tlcSymmetryCounts = map[int]int64{3: 80, 5: 314, 6: 553}

func TestSymmetryCounts(t *testing.T) {
	for _, rm := range []int{3, 5, 6} {
		m, _ := New(rm)
		for _, mode := range []checker.Mode{checker.BreadthFirst, checker.DepthFirst} {
			for _, w := range []int{1, 2} {
				t.Run(fmt.Sprintf("RM=%d/%s/workers=%d", rm, mode, w), func(t *testing.T) {
					r := checker.Search[State](m, checker.Options{Mode: mode, Workers: w, Symmetry: true})
					if r.Err != nil || !r.Complete || len(r.Violations) != 0 || !r.Symmetry {
						t.Fatalf("err=%v complete=%v violations=%v symmetry=%v", r.Err, r.Complete, r.Violations, r.Symmetry)
					}
					if r.States != tlcSymmetryCounts[rm] {
						t.Errorf("%d distinct states under symmetry, want %d", r.States, tlcSymmetryCounts[rm])
					}
				})
			}
		}
	}
}

// permute applies the permutation p of RMs to s.
func permute(s State, n int, p []int) State {
	out := s & (State(3)<<tmShift(n) | State(1)<<commitBit(n) | State(1)<<abortBit(n))
	for r := range n {
		t := tuple(s, n, r)
		q := p[r]
		out |= State(t&3)<<(2*q) | State(t>>2&1)<<(tmPreparedShift(n)+q) | State(t>>3&1)<<(msgShift(n)+q)
	}
	return out
}

// TestCanonicalIsCanonical checks, on every reachable state of RM=5, that
// Canonical is invariant under random permutations and idempotent, and
// that symmetric states are exactly those with equal representatives (the
// number of classes matches TLC's).
func TestCanonicalIsCanonical(t *testing.T) {
	const n = 5
	m, _ := New(n)
	seen := map[State]bool{0: true}
	queue := []State{0}
	var buf []checker.Action
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		buf = m.Actions(s, buf[:0])
		for _, a := range buf {
			ns, err := m.Apply(s, a)
			if err != nil {
				t.Fatal(err)
			}
			if !seen[ns] {
				seen[ns] = true
				queue = append(queue, ns)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	classes := map[State]bool{}
	for s := range seen {
		c := m.Canonical(s)
		classes[c] = true
		if m.Canonical(c) != c {
			t.Fatalf("Canonical not idempotent at %s", s.Format(n))
		}
		if !seen[c] {
			t.Fatalf("representative %s of %s is not reachable", c.Format(n), s.Format(n))
		}
		for range 4 {
			p := r.Perm(n)
			if ps := permute(s, n, p); m.Canonical(ps) != c {
				t.Fatalf("Canonical(%s) != Canonical(%s)", ps.Format(n), s.Format(n))
			}
		}
	}
	if int64(len(classes)) != tlcSymmetryCounts[n] {
		t.Fatalf("%d classes, want %d", len(classes), tlcSymmetryCounts[n])
	}
}

// TestBrokenCommitSymmetry: under symmetry the counterexample is found on
// real states, replays on the model and is as short as without symmetry.
func TestBrokenCommitSymmetry(t *testing.T) {
	m := &Model{RM: 4, BrokenCommit: true}
	for _, mode := range []checker.Mode{checker.BreadthFirst, checker.DepthFirst} {
		plain := checker.Search[State](m, checker.Options{Mode: mode, Workers: 2})
		sym := checker.Search[State](m, checker.Options{Mode: mode, Workers: 2, Symmetry: true})
		for _, r := range []*checker.Result{plain, sym} {
			if r.Stop != checker.StopViolation || len(r.Violations) != 1 {
				t.Fatalf("%s: stop=%s violations=%d", mode, r.Stop, len(r.Violations))
			}
			tr := r.Violations[0]
			_, err := checker.Replay[State](m, tr)
			var ve *checker.ViolationError
			if !errors.As(err, &ve) || ve.Violation != *tr.Violation {
				t.Fatalf("%s symmetry=%v: replay: %v", mode, r.Symmetry, err)
			}
		}
		if mode == checker.BreadthFirst && len(sym.Violations[0].Steps) != len(plain.Violations[0].Steps) {
			t.Fatalf("bfs: %d steps under symmetry, %d without", len(sym.Violations[0].Steps), len(plain.Violations[0].Steps))
		}
		if mode == checker.BreadthFirst && len(sym.Violations[0].Steps) != 3 {
			t.Fatalf("bfs: %d steps, want 3", len(sym.Violations[0].Steps))
		}
		t.Logf("%s: %d steps without symmetry, %d with", mode, len(plain.Violations[0].Steps), len(sym.Violations[0].Steps))
	}
}
