package diagnosis

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Test is one test of a round: Tester tests Tested.
type Test struct{ Tester, Tested core.Rank }

// RoundReport is what one test round did: its tests in the order the testers ran them (by
// tester rank, then in each tester's order), and the number of diagnostic entries copied from
// tested nodes (one per entry of a vector a tester reads).
type RoundReport struct {
	S      int // the round's s (1 … log2 n); 0 for Adaptive-DSD, which has no s
	Tests  []Test
	Copied int
}

// faults is the real state of the nodes, shared by the three algorithms.
type faults struct {
	faulty []bool
}

func newFaults(n int, faulty []core.Rank) (faults, error) {
	f := faults{faulty: make([]bool, n)}
	for _, r := range faulty {
		if !r.Valid(n) {
			return f, fmt.Errorf("diagnosis: faulty node %d is outside 0…%d", int32(r), n-1)
		}
		f.faulty[r] = true
	}
	return f, nil
}

// Faulty reports whether node r is really faulty.
func (f faults) Faulty(r core.Rank) bool { return f.faulty[r] }

// FaultSet returns the faulty nodes in increasing order.
func (f faults) FaultSet() []core.Rank {
	var out []core.Rank
	for r, b := range f.faulty {
		if b {
			out = append(out, core.Rank(r))
		}
	}
	return out
}

func (f faults) clone() faults { return faults{faulty: slices.Clone(f.faulty)} }

// checkPow2 checks that n is a power of two ≥ 2 and returns log2 n.
func checkPow2(n int) (int, error) {
	if n < 2 || n&(n-1) != 0 {
		return 0, fmt.Errorf("diagnosis: n = %d is not a power of two ≥ 2", n)
	}
	return bits.Len(uint(n)) - 1, nil
}

// cluster is c(i, s) of §3.4 (core.Cluster), or its MutantClusterNoXOR variant. n and s are
// valid by construction.
func cluster(m mutant.Name, i core.Rank, s, n int) []core.Rank {
	if m == MutantClusterNoXOR {
		out := make([]core.Rank, 1<<(s-1))
		for k := range out {
			out[k] = core.Rank((int(i) + 1<<(s-1) + k) % n)
		}
		return out
	}
	c, err := core.Cluster(i, s, n)
	if err != nil {
		panic(err) // unreachable: New* checked n, and s and i come from the machine itself
	}
	return c
}

func checkMutant(m mutant.Name) error {
	if m != mutant.None && !slices.Contains(Mutants, m) {
		return fmt.Errorf("diagnosis: unknown mutant %q", m)
	}
	return nil
}

// System is what the three distributed algorithms share: rounds, events and each node's
// diagnosis.
type System interface {
	// Round runs one test round of every fault-free node.
	Round() RoundReport
	// Event changes node r's state (fault-free ↔ faulty).
	Event(r core.Rank)
	// Diagnose returns the nodes x believes faulty, a bit per node.
	Diagnose(x core.Rank) []bool
	// Faulty reports whether r is really faulty.
	Faulty(r core.Rank) bool
	// FaultSet returns the faulty nodes in increasing order.
	FaultSet() []core.Rank
}

var (
	_ System = (*ADSD)(nil)
	_ System = (*HiADSD)(nil)
	_ System = (*VCube)(nil)
)

// Converged reports whether every fault-free node's diagnosis equals the real fault set: the
// "consistent and correct diagnosis" of §3.3.
func Converged(sys System, n int) bool {
	for x := core.Rank(0); int(x) < n; x++ {
		if sys.Faulty(x) {
			continue
		}
		for k, b := range sys.Diagnose(x) {
			if b != sys.Faulty(core.Rank(k)) {
				return false
			}
		}
	}
	return true
}

// newCube checks the arguments of a hierarchical system (Hi-ADSD, VCube)
// over n nodes and returns its fault set and log2 n. Errors: n not a power
// of two ≥ 2, a faulty rank outside 0…n−1, an unknown mutant.
func newCube(n int, faulty []core.Rank, m mutant.Name) (faults, int, error) {
	logN, err := checkPow2(n)
	if err != nil {
		return faults{}, 0, err
	}
	if err := checkMutant(m); err != nil {
		return faults{}, 0, err
	}
	f, err := newFaults(n, faulty)
	if err != nil {
		return faults{}, 0, err
	}
	return f, logN, nil
}

// newMatrix returns an n×n matrix of zero values, row i being node i's view.
func newMatrix[T any](n int) [][]T {
	m := make([][]T, n)
	for i := range m {
		m[i] = make([]T, n)
	}
	return m
}

// cloneMatrix returns a deep copy of m.
func cloneMatrix[T any](m [][]T) [][]T {
	c := make([][]T, len(m))
	for i, row := range m {
		c[i] = slices.Clone(row)
	}
	return c
}
