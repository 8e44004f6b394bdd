package diagnosis

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// TestHakimiAminAgainstBruteForce decides one-step t-diagnosability (PMC) of every test graph on
// n = 3 and 4 units, t = 1 and 2, by brute force, and compares the Hakimi–Amin conditions as the
// thesis states them (§3.1). Among graphs where no two units test each other they agree exactly;
// with mutual tests allowed the conditions are sufficient but not necessary: the complete graph
// on 3 units is 1-diagnosable although its units test each other.
func TestHakimiAminAgainstBruteForce(t *testing.T) {
	counts := map[string]int{}
	for n := 3; n <= 4; n++ {
		var pairs [][2]core.Rank
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				if a != b {
					pairs = append(pairs, [2]core.Rank{core.Rank(a), core.Rank(b)})
				}
			}
		}
		for mask := 0; mask < 1<<len(pairs); mask++ {
			g := TestGraph{N: n}
			for e, p := range pairs {
				if mask>>e&1 == 1 {
					g.Tests = append(g.Tests, p)
				}
			}
			for tt := 1; tt <= 2; tt++ {
				brute, _ := g.Diagnosable(PMC, tt)
				failed := g.HakimiAmin(tt)
				mutual := false
				for _, f := range failed {
					if len(f) > 0 && f[len(f)-len("test each other"):] == "test each other" {
						mutual = true
					}
				}
				ha := len(failed) == 0
				switch {
				case ha && !brute:
					t.Fatalf("n=%d t=%d %v: Hakimi–Amin holds but brute force finds a collision", n, tt, g.Tests)
				case !mutual && ha != brute:
					t.Fatalf("n=%d t=%d %v: without mutual tests, Hakimi–Amin %v ≠ brute force %v (%v)", n, tt, g.Tests, ha, brute, failed)
				case mutual && brute:
					counts["diagnosable with mutual tests"]++
				}
				if brute {
					counts["diagnosable"]++
				}
			}
		}
	}
	t.Logf("%v", counts)
	full := TestGraph{N: 3}
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			if a != b {
				full.Tests = append(full.Tests, [2]core.Rank{core.Rank(a), core.Rank(b)})
			}
		}
	}
	if ok, _ := full.Diagnosable(PMC, 1); !ok || len(full.HakimiAmin(1)) == 0 {
		t.Fatalf("complete graph on 3 units: diagnosable=%v, Hakimi–Amin failures %v", ok, full.HakimiAmin(1))
	}
	if counts["diagnosable with mutual tests"] == 0 {
		t.Fatal("no diagnosable graph with mutual tests: the comparison saw nothing")
	}
}

// TestBGMOutcomes: §3.2's rules, and its inferences: a 0 outcome means the tested unit is
// fault-free; two faulty units always give 1.
func TestBGMOutcomes(t *testing.T) {
	for _, tc := range []struct {
		testerFaulty, testedFaulty bool
		pmc, bgm                   int
	}{{false, false, 1, 1}, {false, true, 1, 1}, {true, false, 2, 2}, {true, true, 2, 1}} {
		if got := len(Outcomes(PMC, tc.testerFaulty, tc.testedFaulty)); got != tc.pmc {
			t.Errorf("PMC %v→%v: %d outcomes, want %d", tc.testerFaulty, tc.testedFaulty, got, tc.pmc)
		}
		if got := len(Outcomes(BGM, tc.testerFaulty, tc.testedFaulty)); got != tc.bgm {
			t.Errorf("BGM %v→%v: %d outcomes, want %d", tc.testerFaulty, tc.testedFaulty, got, tc.bgm)
		}
		for _, o := range Outcomes(BGM, tc.testerFaulty, tc.testedFaulty) {
			if o == 0 && tc.testedFaulty {
				t.Errorf("BGM: outcome 0 about a faulty unit")
			}
		}
	}
}

// FuzzADSDDiagnose: Diagnose over any TESTED_UP vector (pointers anywhere, * included) returns
// one bit per node, never a panic, and never diagnoses x itself faulty.
func FuzzADSDDiagnose(f *testing.F) {
	f.Add([]byte{2, 255, 3, 6, 255, 255, 7, 0}, uint8(2))
	f.Add([]byte{1, 0}, uint8(0))
	f.Fuzz(func(t *testing.T, ptrs []byte, x uint8) {
		n := len(ptrs)
		if n < 2 || n > 64 {
			return
		}
		a, err := NewADSD(n, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		xr := core.Rank(int(x) % n)
		for k, p := range ptrs {
			a.TestedUp[xr][k] = core.NoRank
			if int(p) < n {
				a.TestedUp[xr][k] = core.Rank(p)
			}
		}
		d := a.Diagnose(xr)
		if len(d) != n || d[xr] {
			t.Fatalf("Diagnose(%d) over %v = %v", xr, a.TestedUp[xr], d)
		}
	})
}
