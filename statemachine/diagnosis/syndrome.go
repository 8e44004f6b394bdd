package diagnosis

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// OutcomeModel says which test outcomes a tester may report (§3.1, §3.2).
type OutcomeModel uint8

const (
	// PMC (Preparata, Metze and Chien; §3.1): a fault-free tester reports the tested unit's
	// state exactly (0 fault-free, 1 faulty); a faulty tester may report either outcome.
	PMC OutcomeModel = iota + 1
	// BGM (Barsi, Grandoni and Maestrini; §3.2): as PMC, except that a faulty tester of a
	// faulty unit necessarily reports 1.
	BGM
)

func (m OutcomeModel) String() string {
	switch m {
	case PMC:
		return "PMC"
	case BGM:
		return "BGM"
	}
	return fmt.Sprintf("OutcomeModel(%d)", uint8(m))
}

// Outcomes returns the outcomes (0 pass, 1 fail) that tester may report about tested under m,
// given which of them is faulty: one outcome when it is determined, both when it is arbitrary.
func Outcomes(m OutcomeModel, testerFaulty, testedFaulty bool) []uint8 {
	switch {
	case !testerFaulty && testedFaulty:
		return []uint8{1}
	case !testerFaulty:
		return []uint8{0}
	case m == BGM && testedFaulty:
		return []uint8{1} // §3.2: "u_i e u_j ambos falhos → resultado necessariamente 1"
	}
	return []uint8{0, 1}
}

// TestGraph is a connection assignment (§3.1): N units 0 … N−1 and the directed tests
// tester → tested, in a fixed order that is also the order of a syndrome's bits.
type TestGraph struct {
	N     int
	Tests [][2]core.Rank
}

// Ring returns the ring u0 → u1 → … → u(n−1) → u0 of Fig. 3.1 (0-based).
func Ring(n int) TestGraph {
	g := TestGraph{N: n}
	for i := 0; i < n; i++ {
		g.Tests = append(g.Tests, [2]core.Rank{core.Rank(i), core.Rank((i + 1) % n)})
	}
	return g
}

// Syndromes returns every syndrome that fault set faulty (a bit mask of units) can produce on g
// under m: bit e of a syndrome is the outcome of test g.Tests[e]. g has at most 64 tests.
func (g TestGraph) Syndromes(m OutcomeModel, faulty uint64) []uint64 {
	out := []uint64{0}
	for e, t := range g.Tests {
		oc := Outcomes(m, faulty>>uint(t[0])&1 == 1, faulty>>uint(t[1])&1 == 1)
		if len(oc) == 1 {
			if oc[0] == 1 {
				for k := range out {
					out[k] |= 1 << uint(e)
				}
			}
			continue
		}
		n := len(out)
		for k := 0; k < n; k++ {
			out = append(out, out[k]|1<<uint(e))
		}
	}
	return out
}

// Collision is two fault sets of at most t units that can produce the same syndrome: the
// witness that a graph is not one-step t-diagnosable.
type Collision struct {
	A, B     uint64 // fault sets, bit masks of units
	Syndrome uint64 // a syndrome both can produce
}

// Diagnosable decides one-step t-diagnosability of g under m by brute force (§3.1): every
// syndrome produced by a fault set of at most t units identifies that fault set. It visits every
// pair of such fault sets, so it is for small N (≤ 20). It returns a Collision when g is not
// t-diagnosable.
func (g TestGraph) Diagnosable(m OutcomeModel, t int) (bool, *Collision) {
	owner := map[uint64]uint64{}
	for f := uint64(0); f < 1<<uint(g.N); f++ {
		if bits.OnesCount64(f) > t {
			continue
		}
		for _, syn := range g.Syndromes(m, f) {
			if o, ok := owner[syn]; ok && o != f {
				return false, &Collision{A: o, B: f, Syndrome: syn}
			}
			owner[syn] = f
		}
	}
	return true, nil
}

// HakimiAmin returns the conditions of Hakimi and Amin, as the thesis states them (§3.1), that
// g fails for t: "duas unidades não se testam entre si; cada unidade é testada por no mínimo t
// outras e; N ≥ 2t + 1". An empty result means all three hold. The thesis states them as
// necessary and sufficient for one-step t-diagnosability; TestHakimiAminAgainstBruteForce shows
// that they are sufficient, and necessary only among graphs where no two units test each other.
func (g TestGraph) HakimiAmin(t int) []string {
	var failed []string
	has := map[[2]core.Rank]bool{}
	for _, e := range g.Tests {
		has[e] = true
	}
	for _, e := range g.Tests {
		if has[[2]core.Rank{e[1], e[0]}] {
			failed = append(failed, fmt.Sprintf("u%d and u%d test each other", e[0], e[1]))
			break
		}
	}
	testers := make([]int, g.N)
	for e := range has {
		if e[0] != e[1] {
			testers[e[1]]++
		}
	}
	for u, k := range testers {
		if k < t {
			failed = append(failed, fmt.Sprintf("u%d is tested by %d < t = %d units", u, k, t))
			break
		}
	}
	if g.N < 2*t+1 {
		failed = append(failed, fmt.Sprintf("N = %d < 2t + 1 = %d", g.N, 2*t+1))
	}
	return failed
}

// FormatSyndrome writes a syndrome as the thesis does, "(x, 0, 0, 0, 1)", with x at every test
// whose tester is in faulty (its outcome arbitrary under PMC).
func (g TestGraph) FormatSyndrome(syn, faulty uint64) string {
	parts := make([]string, len(g.Tests))
	for e, t := range g.Tests {
		switch {
		case faulty>>uint(t[0])&1 == 1:
			parts[e] = "x"
		default:
			parts[e] = fmt.Sprint(syn >> uint(e) & 1)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
