package envtest

import (
	"fmt"
	"math/rand/v2"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// Model is a checker model over env worlds: an *env.Model, or a model that
// wraps one (such as a benchmark that restricts its crashes).
type Model = checker.Model[*env.World]

// Walk runs walks random walks of m from seed, each from an initial state
// chosen uniformly, taking at every step an action chosen uniformly among
// m.Actions (crashes included, so crashed worlds are reached) until none
// is enabled or maxDepth steps were taken. It calls visit on every world
// of every walk, initial ones included, and stops at the first error (a
// failed Apply is one). Walk w uses PCG(seed, w): the same arguments visit
// the same worlds.
func Walk(m Model, seed uint64, walks, maxDepth int, visit func(w *env.World) error) error {
	init := m.Init()
	var buf []checker.Action
	for k := range walks {
		r := rand.New(rand.NewPCG(seed, uint64(k)))
		w := init[r.IntN(len(init))]
		for depth := 0; ; depth++ {
			if err := visit(w); err != nil {
				return fmt.Errorf("walk %d (seed %d), step %d: %w", k, seed, depth, err)
			}
			buf = m.Actions(w, buf[:0])
			if len(buf) == 0 || depth == maxDepth {
				break
			}
			a := buf[r.IntN(len(buf))]
			next, err := m.Apply(w, a)
			if err != nil {
				return fmt.Errorf("walk %d (seed %d), step %d: %s: %w", k, seed, depth+1, m.Describe(w, a), err)
			}
			w = next
		}
	}
	return nil
}

// Explore visits the worlds reachable from m's initial states breadth
// first, deduplicated by encoding, and calls visit on every world it
// generates (every successor of every expanded world, duplicates
// included, and the initial states): a Distinct given every one of them
// sees two different worlds that the search would merge. It stops with an
// error after more than maxStates distinct worlds, or at visit's first
// error. It returns the number of distinct worlds.
func Explore(m Model, maxStates int, visit func(w *env.World) error) (int, error) {
	return explore(m, maxStates, visit, nil, func(_ *env.World, _ checker.Action, next *env.World) error { return visit(next) })
}

// ExploreTransitions is Explore calling expand (when not nil) on each
// distinct world as it is expanded, in breadth-first order, and step on
// every transition (prev, a, next) taken: each world is expanded once, and
// a transition to a world met before is still a transition.
func ExploreTransitions(m Model, maxStates int, expand func(w *env.World) error, step func(prev *env.World, a checker.Action, next *env.World) error) (int, error) {
	return explore(m, maxStates, nil, expand, step)
}

// explore is the search of Explore and ExploreTransitions: init (when not
// nil) on each initial state and step on each transition, both before the
// world is deduplicated, and expand (when not nil) on each world expanded.
func explore(m Model, maxStates int, init, expand func(w *env.World) error, step func(prev *env.World, a checker.Action, next *env.World) error) (int, error) {
	seen := map[string]bool{}
	var queue []*env.World
	add := func(w *env.World) error {
		k := string(m.Encode(nil, w))
		if !seen[k] {
			seen[k] = true
			queue = append(queue, w)
			if len(seen) > maxStates {
				return fmt.Errorf("%s: more than %d states", m.Name(), maxStates)
			}
		}
		return nil
	}
	for _, w := range m.Init() {
		if init != nil {
			if err := init(w); err != nil {
				return len(seen), err
			}
		}
		if err := add(w); err != nil {
			return len(seen), err
		}
	}
	var buf []checker.Action
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		if expand != nil {
			if err := expand(w); err != nil {
				return len(seen), err
			}
		}
		buf = m.Actions(w, buf[:0])
		for _, a := range buf {
			next, err := m.Apply(w, a)
			if err != nil {
				return len(seen), fmt.Errorf("%s: %w", m.Describe(w, a), err)
			}
			if err := step(w, a, next); err != nil {
				return len(seen), err
			}
			if err := add(next); err != nil {
				return len(seen), err
			}
		}
	}
	return len(seen), nil
}
