package props

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// deafTo is a planted broken failure detector: the environment m, except
// that the death of rank q is never reported (no Detect(·, q) action) and
// a world whose only owed actions were those reports counts as the end of
// the run, the way a detector that forgot q would account for it.
type deafTo struct {
	*env.Model
	q int32
}

func (m deafTo) Actions(s *env.World, buf []checker.Action) []checker.Action {
	start := len(buf)
	buf = m.Model.Actions(s, buf)
	out := buf[:start]
	for _, a := range buf[start:] {
		if a.Kind != env.Detect || a.Q != m.q {
			out = append(out, a)
		}
	}
	return out
}

func (m deafTo) Quiescent(s *env.World) bool {
	for _, a := range m.Actions(s, nil) {
		if !m.Ignorable(a) {
			return false
		}
	}
	return true
}

// TestDetectorComplete: the perfect detector of the environment reports
// every crash to every live process by quiescence, at N = 3 with up to two
// crashes; a detector that never reports p1's death fails the property
// (with the world that shows it), and so does an environment without a
// detector, which the property is not meant for.
func TestDetectorComplete(t *testing.T) {
	p := DetectorComplete("detector-complete", "")
	build := func(det env.Detector) *env.Model {
		m, err := env.New(env.Config{Name: "toy", N: 3, Crashes: 2, Detector: det,
			NewNode:    func(r core.Rank, n int) core.Machine { return &toy{me: r, n: core.Rank(n)} },
			Schedules:  [][][]core.Input{{{num(1)}, {num(2)}, nil}},
			Properties: []checker.Property[*env.World]{p}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	res := checker.BFS[*env.World](build(env.DetectorPerfect), checker.Options{})
	if res.Err != nil || !res.Complete || len(res.Violations) != 0 {
		t.Fatalf("perfect detector: err %v, complete %v, violations %v", res.Err, res.Complete, res.Violations)
	}
	for _, c := range []struct {
		name string
		m    checker.Model[*env.World]
		want string
	}{
		{"deaf to p1", deafTo{build(env.DetectorPerfect), 1}, "never told that p1 crashed"},
		{"no detector", build(env.DetectorNone), "never told that"},
	} {
		res := checker.BFS(c.m, checker.Options{})
		if res.Err != nil || len(res.Violations) != 1 || !strings.Contains(res.Violations[0].Violation.String(), c.want) {
			t.Errorf("%s: err %v, violations %v; want one naming %q", c.name, res.Err, res.Violations, c.want)
		}
	}
}
