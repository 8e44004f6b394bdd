package envtest

import "github.com/ftkernel/ftkernel/checker/env"

// Plan says how much of a model Check visits: every world, if MaxStates
// > 0 (fails beyond that many distinct worlds), and Walks random walks of
// at most Depth steps from Seed.
type Plan struct {
	MaxStates    int
	Seed         uint64
	Walks, Depth int
}

// Report counts what Check visited: distinct worlds (by encoding), worlds
// visited (with repeats) and how many of those were quiescent.
type Report struct {
	Distinct, Visited, Quiescent int
}

// Check runs Quiescence and a Distinct on every world the plan visits of
// m and returns the first error.
func Check(m Model, plan Plan) (Report, error) {
	var rep Report
	d := NewDistinct(m)
	visit := func(w *env.World) error {
		rep.Visited++
		if m.Quiescent(w) {
			rep.Quiescent++
		}
		if err := Quiescence(m, w); err != nil {
			return err
		}
		return d.Add(w)
	}
	if plan.MaxStates > 0 {
		if _, err := Explore(m, plan.MaxStates, visit); err != nil {
			return rep, err
		}
	}
	err := Walk(m, plan.Seed, plan.Walks, plan.Depth, visit)
	rep.Distinct = d.Worlds
	return rep, err
}
