package diagnosis

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// ADSD is Adaptive-DSD (Bianchini and Buskens; thesis §3.3) over n nodes: each node x holds
// TESTED_UP_x, where TESTED_UP_x[i] = j means "node i tested node j fault-free", learned by x
// directly (x = i) or through fault-free nodes. core.NoRank is the thesis's "*" (arbitrary).
type ADSD struct {
	faults
	N int
	// TestedUp[x] is TESTED_UP_x (n entries each).
	TestedUp [][]core.Rank
	Mutant   mutant.Name
}

// NewADSD returns Adaptive-DSD over n ≥ 2 nodes with the given nodes faulty. Every node starts
// believing every node fault-free: TESTED_UP_x[i] = i+1 mod n, the ring of a fault-free system.
// Ambiguity: the thesis gives no initial TESTED_UP; this one is the converged state of the
// fault-free system. Errors: n < 2, a faulty rank outside 0…n−1, an unknown mutant.
func NewADSD(n int, faulty []core.Rank, m mutant.Name) (*ADSD, error) {
	if n < 2 {
		return nil, fmt.Errorf("adsd: n = %d < 2", n)
	}
	if err := checkMutant(m); err != nil {
		return nil, err
	}
	f, err := newFaults(n, faulty)
	if err != nil {
		return nil, err
	}
	a := &ADSD{faults: f, N: n, TestedUp: make([][]core.Rank, n), Mutant: m}
	for x := range a.TestedUp {
		a.TestedUp[x] = initialTestedUp(n)
	}
	return a, nil
}

func initialTestedUp(n int) []core.Rank {
	t := make([]core.Rank, n)
	for i := range t {
		t[i] = core.Rank((i + 1) % n)
	}
	return t
}

// Clone returns a deep copy.
func (a *ADSD) Clone() *ADSD {
	b := &ADSD{faults: a.faults.clone(), N: a.N, TestedUp: make([][]core.Rank, a.N), Mutant: a.Mutant}
	for x, t := range a.TestedUp {
		b.TestedUp[x] = slices.Clone(t)
	}
	return b
}

// Round runs one test round (§3.3): "a fault-free node tests the next nodes in sequence (i+1,
// i+2, … mod n) until it finds a fault-free node or has tested all nodes as faulty. When it finds
// a fault-free node it copies that node's diagnostic information." Node i sets TESTED_UP_i[i] to
// the fault-free node j it found (or * when every other node is faulty) and copies
// TESTED_UP_j[k] for every k ≠ i, as j held it at the start of the round. Faulty nodes do
// nothing.
func (a *ADSD) Round() RoundReport {
	old := make([][]core.Rank, a.N)
	for x, t := range a.TestedUp {
		old[x] = slices.Clone(t)
	}
	var rep RoundReport
	for i := core.Rank(0); int(i) < a.N; i++ {
		if a.faulty[i] {
			continue
		}
		found := core.NoRank
		first := core.NoRank
		for d := 1; d < a.N; d++ {
			j := core.Rank((int(i) + d) % a.N)
			rep.Tests = append(rep.Tests, Test{i, j})
			if first == core.NoRank {
				first = j
			}
			if !a.faulty[j] {
				found = j
				break
			}
		}
		src := found
		if a.Mutant == MutantCopyFromFaulty {
			src = first // the broken rule: copy from the first node tested, fault-free or not
		}
		t := a.TestedUp[i]
		if src != core.NoRank {
			for k := range t {
				if core.Rank(k) != i {
					t[k] = old[src][k]
				}
			}
			rep.Copied += a.N
		}
		t[i] = found
	}
	return rep
}

// Event changes node r's state (§3.3: "an event is a state change"). A recovering node restarts
// from the initial TESTED_UP (NewADSD); a failing node stops, its TESTED_UP frozen.
func (a *ADSD) Event(r core.Rank) {
	a.faulty[r] = !a.faulty[r]
	if !a.faulty[r] {
		a.TestedUp[r] = initialTestedUp(a.N)
	}
}

// Diagnose returns the nodes node x diagnoses as faulty from TESTED_UP_x (§3.3; the procedure is
// not in the thesis, this is Bianchini and Buskens's): follow the pointers from x; the nodes on
// the chain are fault-free, and every node skipped between consecutive pointers is faulty. The
// walk ends back at x, at a "*" pointer, or at a node already on the chain; every node not on the
// chain is faulty. The result is a bit per node.
func (a *ADSD) Diagnose(x core.Rank) []bool {
	t := a.TestedUp[x]
	up := make([]bool, a.N)
	up[x] = true
	cur := x
	if a.Mutant == MutantDiagnoseSkip && t[cur] != core.NoRank && t[cur] != x {
		cur = t[cur] // the broken walk: the first pointed-to node is skipped, not marked fault-free
	}
	for steps := 0; steps < a.N; steps++ {
		nxt := t[cur]
		if nxt == core.NoRank || up[nxt] {
			break
		}
		up[nxt] = true
		cur = nxt
	}
	bad := make([]bool, a.N)
	for r := range bad {
		bad[r] = !up[r]
	}
	return bad
}
