package diagnosis

import (
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// VCube is VCube (Duarte, Bona and Ruoso; thesis §3.4) over n = 2^k nodes: TS[i][k] is node i's
// timestamp for node k, an event counter: even means fault-free, odd faulty, and a larger one is
// newer. Rounds cycle s = 1, 2, …, log2 n, 1, …
type VCube struct {
	faults
	N, LogN int
	// S is the s of the next round.
	S int
	// TS[i][k] is node i's timestamp of node k; 0 initially (believed fault-free).
	TS     [][]uint32
	Mutant mutant.Name
}

// NewVCube returns VCube over n nodes (a power of two ≥ 2) with the given nodes faulty and every
// node believing every node fault-free (every timestamp 0); the first round has s = 1. Errors:
// n not a power of two, a faulty rank outside 0…n−1, an unknown mutant.
func NewVCube(n int, faulty []core.Rank, m mutant.Name) (*VCube, error) {
	f, logN, err := newCube(n, faulty, m)
	if err != nil {
		return nil, err
	}
	return &VCube{faults: f, N: n, LogN: logN, S: 1, TS: newMatrix[uint32](n), Mutant: m}, nil
}

// Clone returns a deep copy.
func (v *VCube) Clone() *VCube {
	c := *v
	c.faults = v.faults.clone()
	c.TS = cloneMatrix(v.TS)
	return &c
}

// believesFaulty reports whether node i believes k faulty; i believes itself fault-free.
func (v *VCube) believesFaulty(i, k core.Rank) bool { return i != k && v.TS[i][k]%2 == 1 }

// Tests reports whether node i tests j in round s (§3.4, exact): "before a node i executes a test
// on node j ∈ c(i,s), node i checks whether it is the first fault-free node in c(j,s) (note that
// the index is j)": i tests j iff i is the first node of c(j, s) that i believes fault-free.
func (v *VCube) Tests(i, j core.Rank, s int) bool {
	return vcubeTests(v.Mutant, i, j, s, v.N, v.TS[i])
}

// vcubeTests is the tester rule of §3.4 for node i, whose timestamps are ts: i tests j in
// round s iff i is the first node of c(j, s) that i believes fault-free (an even timestamp;
// i believes itself fault-free). MutantTesterOwnCluster reads c(i, s) instead.
func vcubeTests(m mutant.Name, i, j core.Rank, s, n int, ts []uint32) bool {
	c := cluster(m, j, s, n)
	if m == MutantTesterOwnCluster {
		c = cluster(m, i, s, n) // the broken rule: c(i, s) instead of c(j, s)
	}
	for _, k := range c {
		if k == i || ts[k]%2 == 0 {
			return k == i
		}
	}
	return false
}

// vcubeMerge is VCube's copy (§3.4: "copies all diagnostic information from the tested node,
// and accepts an entry only if its timestamp is newer"): tester i, with timestamps t, takes
// every entry k ≠ i, j of fault-free j's timestamps from that is greater than its own
// (MutantTimestampGE: greater or equal). Entry j is the test's own outcome.
func vcubeMerge(m mutant.Name, t, from []uint32, i, j core.Rank) {
	for k := range t {
		if core.Rank(k) == i || core.Rank(k) == j {
			continue
		}
		if from[k] > t[k] || (m == MutantTimestampGE && from[k] >= t[k]) {
			t[k] = from[k]
		}
	}
}

// Round runs test round s = v.S (§3.4): each fault-free node i tests every j ∈ c(i, s) that it
// Tests; a test sets i's timestamp of j to the next event count when j's state differs from
// what i believed; from a fault-free j, i copies every entry k ≠ i whose timestamp is newer
// (greater) than its own, as j held it at the start of the round. Then s advances cyclically.
func (v *VCube) Round() RoundReport {
	old := cloneMatrix(v.TS)
	before := v.Clone() // beliefs at the start of the round decide who tests
	before.TS = old
	rep := RoundReport{S: v.S}
	for i := core.Rank(0); int(i) < v.N; i++ {
		if v.faulty[i] {
			continue
		}
		for _, j := range cluster(v.Mutant, i, v.S, v.N) {
			if !before.Tests(i, j, v.S) {
				continue
			}
			rep.Tests = append(rep.Tests, Test{i, j})
			t := v.TS[i]
			if (t[j]%2 == 1) != v.faulty[j] {
				t[j]++
			}
			if v.faulty[j] {
				continue
			}
			vcubeMerge(v.Mutant, t, old[j], i, j)
			rep.Copied += v.N
		}
	}
	v.S = v.S%v.LogN + 1
	return rep
}

// Event changes node r's state; a recovering node restarts with every timestamp 0.
// Ambiguity: the thesis does not say what a recovering node knows; timestamps restart at the
// initial state, so that every entry others hold is at least as new.
func (v *VCube) Event(r core.Rank) {
	v.faulty[r] = !v.faulty[r]
	if !v.faulty[r] {
		clear(v.TS[r])
	}
}

// Diagnose returns node x's diagnosis: the nodes it believes faulty, a bit per node.
func (v *VCube) Diagnose(x core.Rank) []bool {
	d := make([]bool, v.N)
	for k := range d {
		d[k] = v.believesFaulty(x, core.Rank(k))
	}
	return d
}
