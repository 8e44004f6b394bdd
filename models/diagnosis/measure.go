package diagnosis

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	dg "github.com/ftkernel/ftkernel/statemachine/diagnosis"
)

// Run is one measured run of an algorithm from the start (every node believing every node
// fault-free) with a fixed fault set.
type Run struct {
	// LatencyRounds is the number of test rounds until every fault-free node's diagnosis equals
	// the fault set.
	LatencyRounds int
	// TestsToConverge is the number of tests in those rounds.
	TestsToConverge int
	// Converged is the system once converged.
	Converged dg.System
}

// Measure runs alg over n nodes with the given faulty nodes until diagnosis converges; it is an
// error when it has not after maxRounds rounds, or when the arguments are invalid.
func Measure(alg string, n int, faulty []core.Rank, m mutant.Name, maxRounds int) (*Run, error) {
	sys, err := NewSystem(alg, n, faulty, m)
	if err != nil {
		return nil, err
	}
	if len(faulty) >= n {
		return nil, fmt.Errorf("%s: every node faulty", alg)
	}
	r := &Run{Converged: sys}
	for !dg.Converged(sys, n) {
		if r.LatencyRounds == maxRounds {
			return nil, fmt.Errorf("%s n=%d faulty=%v: not converged after %d rounds", alg, n, faulty, maxRounds)
		}
		rep := sys.Round()
		r.LatencyRounds++
		r.TestsToConverge += len(rep.Tests)
	}
	return r, nil
}

// CycleTests runs one cycle of rounds from a converged system (log2 n rounds, s = 1 … log2 n, for
// Hi-ADSD and VCube; one round for Adaptive-DSD) on a copy, and returns each round's report.
func CycleTests(sys dg.System, n int) []dg.RoundReport {
	sys = Clone(sys)
	rounds := 1
	switch s := sys.(type) {
	case *dg.HiADSD:
		s.S, rounds = 1, LogN(n)
	case *dg.VCube:
		s.S, rounds = 1, LogN(n)
	}
	out := make([]dg.RoundReport, rounds)
	for k := range out {
		out[k] = sys.Round()
	}
	return out
}

// MaxRounds is the round cap of a measured run: well past every bound.
func MaxRounds(n int) int { return 4*n + 4*LogN(n)*LogN(n) + 8 }
