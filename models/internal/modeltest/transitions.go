package modeltest

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/core"
)

// EachTransition calls f on every transition (prev, a, next) of m reachable
// from its initial worlds, breadth first, each world expanded once
// (envtest.ExploreTransitions). It fails t on an Apply error or past
// maxStates distinct worlds, and returns the number of distinct worlds.
func EachTransition(t testing.TB, m *env.Model, maxStates int, f func(prev *env.World, a checker.Action, next *env.World)) int {
	t.Helper()
	n, err := envtest.ExploreTransitions(m, maxStates, nil, func(prev *env.World, a checker.Action, next *env.World) error {
		f(prev, a, next)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", m.Name(), err)
	}
	return n
}

// MaySendReport counts what CheckMaySend saw.
type MaySendReport struct {
	States int // distinct worlds
	Sends  int // messages sent by the transitions
	// Ruled is the number of (world, live p, r ≠ p) the relation answered
	// false for: 0 means it never rules anything out (sound and useless).
	Ruled int
}

// CheckMaySend checks a "may still send to" relation (env.Config.MaySend)
// on every reachable transition of m (EachTransition): every message a
// step of p sends to r was allowed, rel(prev, p, r), and a pair ruled out
// for a live p stays ruled out, !rel(prev, p, r) ⇒ !rel(next, p, r) while
// p lives. Together the two make "false" mean "p never sends to r again on
// any path from here", which is what checker/env's persistent sets need.
func CheckMaySend(t testing.TB, m *env.Model, maxStates int, rel func(w *env.World, p, r core.Rank) bool) MaySendReport {
	t.Helper()
	var rep MaySendReport
	fails := 0
	fail := func(format string, args ...any) {
		t.Helper()
		if fails++; fails <= 5 {
			t.Errorf(format, args...)
		}
	}
	n := 0
	rep.States = EachTransition(t, m, maxStates, func(prev *env.World, a checker.Action, next *env.World) {
		n = prev.N()
		if p := next.LastActor(); p >= 0 && a.Kind != env.Crash {
			for _, e := range next.LastEffects() {
				if e.Kind != core.EffSend {
					continue
				}
				rep.Sends++
				if !rel(prev, p, e.To) {
					fail("%s: %s sent %v from %v to %v, which the relation ruled out before the step", m.Name(), m.Describe(prev, a), e.Msg, p, e.To)
				}
			}
		}
		for p := range core.Rank(n) {
			if prev.Crashed(p) || next.Crashed(p) {
				continue
			}
			for r := range core.Rank(n) {
				if r == p || rel(prev, p, r) {
					continue
				}
				rep.Ruled++
				if rel(next, p, r) {
					fail("%s: after %s the relation allows %v → %v again", m.Name(), m.Describe(prev, a), p, r)
				}
			}
		}
	})
	if fails > 5 {
		t.Errorf("%s: %d more failures", m.Name(), fails-5)
	}
	return rep
}

// StableReport counts what CheckStable saw.
type StableReport struct {
	States int // distinct worlds
	// Violating is the number of transitions whose source violates the
	// invariant; Withdrawn those of them, other than a Crash, whose
	// target does not.
	Violating, Withdrawn int
	// Example describes the first withdrawn transition.
	Example string
}

// CheckStable runs invariant check over every reachable transition of m
// and counts the violations a non-crash action withdraws: checker's
// Property.Stable holds for m exactly when Withdrawn is 0 on the whole
// state graph.
func CheckStable(t testing.TB, m *env.Model, maxStates int, check func(*env.World) error) StableReport {
	t.Helper()
	var rep StableReport
	rep.States = EachTransition(t, m, maxStates, func(prev *env.World, a checker.Action, next *env.World) {
		if check(prev) == nil {
			return
		}
		rep.Violating++
		if a.Kind != env.Crash && check(next) == nil {
			if rep.Withdrawn++; rep.Withdrawn == 1 {
				rep.Example = m.Describe(prev, a)
			}
		}
	})
	return rep
}
