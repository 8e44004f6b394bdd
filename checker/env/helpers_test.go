package env

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
)

func mustNew(t testing.TB, cfg Config) *Model {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func act(kind uint8, p, q, i int32) checker.Action {
	return checker.Action{Kind: kind, P: p, Q: q, I: i}
}

// run applies the actions in turn from s.
func run(t testing.TB, m *Model, s *World, as ...checker.Action) *World {
	t.Helper()
	for _, a := range as {
		next, err := m.Apply(s, a)
		if err != nil {
			t.Fatalf("%s: %v", m.Describe(s, a), err)
		}
		s = next
	}
	return s
}

func enc(m *Model, s *World) string { return string(m.Encode(nil, s)) }

func has(as []checker.Action, a checker.Action) bool {
	for _, b := range as {
		if a == b {
			return true
		}
	}
	return false
}

// explore visits every world reachable from Init (deduplicated by Encode)
// and calls f on each with its enabled actions; it returns the count.
func explore(t testing.TB, m *Model, limit int, f func(s *World, as []checker.Action)) int {
	t.Helper()
	seen := map[string]bool{}
	var queue []*World
	for _, s := range m.Init() {
		if k := enc(m, s); !seen[k] {
			seen[k] = true
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		as := m.Actions(s, nil)
		f(s, as)
		for _, a := range as {
			next, err := m.Apply(s, a)
			if err != nil {
				t.Fatalf("%s: %v", m.Describe(s, a), err)
			}
			if k := enc(m, next); !seen[k] {
				seen[k] = true
				queue = append(queue, next)
				if len(seen) > limit {
					t.Fatalf("more than %d states", limit)
				}
			}
		}
	}
	return len(seen)
}

// mustHold searches c breadth-first with one worker and fails t unless the
// search completes with no error and no violated property.
func mustHold(t testing.TB, name string, c Config) *checker.Result {
	t.Helper()
	r := checker.BFS[*World](mustNew(t, c), checker.Options{Workers: 1})
	if r.Err != nil || !r.Complete || len(r.Violations) != 0 {
		t.Fatalf("%s: err %v, complete %v, violations %v", name, r.Err, r.Complete, r.Violations)
	}
	return r
}
