package replica

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// Comm is one point-to-point communication of a generated program: Src
// computes acc ← Fn(acc, K) and sends acc to Dst with Tag, and Dst receives
// it by explicit source and tag and adds it to its accumulator.
type Comm struct {
	Src, Dst, Tag int
	Fn            sm.Fn
	K             int64
}

// PatternPrograms turns a communication pattern into one program per
// logical process (each ends with Output). The programs cannot deadlock:
// executing the communications in the pattern's order is a complete run,
// since sends never block. Errors: a Comm with Src = Dst, a rank outside
// 0 … procs−1, or a negative tag.
func PatternPrograms(procs int, comms []Comm) ([]sm.Program, error) {
	progs := make([]sm.Program, procs)
	for i, c := range comms {
		if c.Src < 0 || c.Src >= procs || c.Dst < 0 || c.Dst >= procs || c.Src == c.Dst || c.Tag < 0 {
			return nil, fmt.Errorf("replica: communication %d %+v invalid for %d processes", i, c, procs)
		}
		progs[c.Src] = append(progs[c.Src], sm.Instr{Op: sm.OpCompute, Fn: c.Fn, K: c.K}, sm.Instr{Op: sm.OpSend, Peer: c.Dst, Tag: c.Tag})
		progs[c.Dst] = append(progs[c.Dst], sm.Instr{Op: sm.OpRecv, Peer: c.Src, Tag: c.Tag, Fn: sm.FnAdd})
	}
	for i := range progs {
		progs[i] = append(progs[i], sm.Instr{Op: sm.OpOutput})
	}
	return progs, nil
}

// Walk runs m from its initial state, taking at each step the action
// choose(len(enabled)) picks, for at most maxSteps steps or until
// quiescence, and checks every property of m on the way (invariants at
// every state, quiescence properties at the end when quiescent). It
// returns the final world and the first violation (property name and
// error), or "" and nil.
func Walk(m *Model, choose func(n int) int, maxSteps int) (*env.World, string, error) {
	w := m.Init()[0]
	props := m.Properties()
	check := func(w *env.World, kinds checker.PropertyKind) (string, error) {
		for _, p := range props {
			if p.Kind == kinds {
				if err := p.Check(w); err != nil {
					return p.Name, err
				}
			}
		}
		return "", nil
	}
	var buf []checker.Action
	for step := 0; step < maxSteps && !m.Quiescent(w); step++ {
		buf = m.Actions(w, buf[:0])
		next, err := m.Apply(w, buf[choose(len(buf))])
		if err != nil {
			return w, "apply", err
		}
		w = next
		if name, err := check(w, checker.Invariant); err != nil {
			return w, name, err
		}
	}
	if m.Quiescent(w) {
		if name, err := check(w, checker.Quiescence); err != nil {
			return w, name, err
		}
	}
	return w, "", nil
}
