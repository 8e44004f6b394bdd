package env

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// floodProperties: histories only grow (transition), every live process
// that called decides and returns (quiescence, from the detector's
// completeness), and all decisions agree (expected to fail: a process may
// learn a crash before the crashed process's message arrives).
func floodProperties() []checker.Property[*World] {
	return []checker.Property[*World]{
		{Name: "irrevocable", Kind: checker.Transition, CheckStep: func(prev *World, _ checker.Action, next *World) error {
			for p := range core.Rank(prev.N()) {
				h, g := prev.History(p), next.History(p)
				if len(g) < len(h) || !slices.Equal(h, g[:len(h)]) {
					return fmt.Errorf("%v history %v became %v", p, h, g)
				}
			}
			return nil
		}},
		{Name: "termination", Kind: checker.Quiescence, Check: func(s *World) error {
			for p := range core.Rank(s.N()) {
				if !s.Crashed(p) && len(s.History(p)) != 2*len(s.CallsMade(p)) {
					return fmt.Errorf("%v made %d calls, history %v", p, len(s.CallsMade(p)), s.History(p))
				}
			}
			return nil
		}},
		{Name: "agreement", Kind: checker.Invariant, ExpectFail: true, Check: func(s *World) error {
			var first core.Value
			for p := range core.Rank(s.N()) {
				for _, r := range s.History(p) {
					if first == nil {
						first = r.Value
					} else if r.Value != first {
						return fmt.Errorf("%v decided %v, another %v", p, r.Value, first)
					}
				}
			}
			return nil
		}},
	}
}

func TestExhaustiveFlood(t *testing.T) {
	for _, net := range []Network{Unordered, FIFO} {
		cfg := floodConfig(3)
		cfg.Network, cfg.Loss = net, LossOnCrash
		cfg.Properties = floodProperties()
		cfg.Schedules = append(cfg.Schedules, one(1, 1, 0))
		m := mustNew(t, cfg)
		res := checker.BFS[*World](m, checker.Options{})
		if res.Err != nil || !res.Complete || len(res.Violations) != 0 {
			t.Fatalf("%v: %+v", net, res)
		}
		t.Logf("%s: %d states, %d transitions, depth %d", m.Name(), res.States, res.Transitions, res.Depth)
		res = checker.BFS[*World](m, checker.Options{Properties: []string{"agreement"}})
		if len(res.Violations) != 1 {
			t.Fatalf("%v: agreement not violated: %+v", net, res)
		}
		for _, st := range res.Violations[0].Steps {
			t.Log(st)
		}
	}
}

func TestWalkFlood(t *testing.T) {
	cfg := floodConfig(64)
	cfg.Crashes, cfg.CrashProb, cfg.Fail = 3, 0.01, []core.Rank{0, 4, 16}
	cfg.Properties = floodProperties()
	m := mustNew(t, cfg)
	res := checker.Walk[*World](m, checker.WalkOptions{Walks: 8, MaxSteps: 1e6, Seed: 1})
	if res.Err != nil || res.Violation != nil {
		t.Fatalf("%+v", res)
	}
	for _, w := range res.PerWalk {
		if !w.Quiescent {
			t.Errorf("walk %+v", w)
		}
	}
	t.Logf("%d walks, %d steps, %.0f steps/s", res.Walks, res.Steps, res.StepsPerSec)
}
