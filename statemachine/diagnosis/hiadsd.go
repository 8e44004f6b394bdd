package diagnosis

import (
	"slices"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// HiADSD is Hi-ADSD (Duarte and Nanya; thesis §3.4) over n = 2^k nodes: Faulty[i][k] is node
// i's belief that node k is faulty. Rounds cycle s = 1, 2, …, log2 n, 1, …
type HiADSD struct {
	faults
	N, LogN int
	// S is the s of the next round.
	S int
	// Believe[i][k] reports that node i believes node k faulty.
	Believe [][]bool
	Mutant  mutant.Name
}

// NewHiADSD returns Hi-ADSD over n nodes (a power of two ≥ 2) with the given nodes faulty and
// every node believing every node fault-free; the first round has s = 1. Errors: n not a power
// of two, a faulty rank outside 0…n−1, an unknown mutant.
func NewHiADSD(n int, faulty []core.Rank, m mutant.Name) (*HiADSD, error) {
	f, logN, err := newCube(n, faulty, m)
	if err != nil {
		return nil, err
	}
	return &HiADSD{faults: f, N: n, LogN: logN, S: 1, Believe: newMatrix[bool](n), Mutant: m}, nil
}

// Clone returns a deep copy.
func (h *HiADSD) Clone() *HiADSD {
	c := *h
	c.faults = h.faults.clone()
	c.Believe = cloneMatrix(h.Believe)
	return &c
}

// Round runs test round s = h.S (§3.4): "in round s, fault-free node i tests the nodes of c(i,s)
// in order until it finds a fault-free node or has tested every node of that cluster as faulty.
// From the fault-free tested node it obtains diagnostic information about the other nodes of
// that cluster only." Copies read the tested node's beliefs at the start of the round. Then s
// advances cyclically.
func (h *HiADSD) Round() RoundReport {
	old := cloneMatrix(h.Believe)
	rep := RoundReport{S: h.S}
	for i := core.Rank(0); int(i) < h.N; i++ {
		if h.faulty[i] {
			continue
		}
		c := cluster(h.Mutant, i, h.S, h.N)
		for _, j := range c {
			rep.Tests = append(rep.Tests, Test{i, j})
			h.Believe[i][j] = h.faulty[j]
			if h.faulty[j] {
				continue
			}
			for _, k := range c {
				if k != j && k != i {
					h.Believe[i][k] = old[j][k]
				}
			}
			rep.Copied += len(c) - 1
			break
		}
	}
	h.S = h.S%h.LogN + 1
	return rep
}

// Event changes node r's state; a recovering node restarts believing every node fault-free.
// Ambiguity: the thesis does not say what a recovering node knows; this is the initial state.
func (h *HiADSD) Event(r core.Rank) {
	h.faulty[r] = !h.faulty[r]
	if !h.faulty[r] {
		clear(h.Believe[r])
	}
}

// Diagnose returns node x's diagnosis: the nodes it believes faulty, a bit per node.
func (h *HiADSD) Diagnose(x core.Rank) []bool {
	d := slices.Clone(h.Believe[x])
	d[x] = false
	return d
}
