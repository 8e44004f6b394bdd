package hyperquicksort

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

func set(rs ...core.Rank) core.RankSet {
	var s core.RankSet
	for _, r := range rs {
		s.Add(r)
	}
	return s
}

// partners formats the partners of the recommended ranks in round s as
// "0→4 1→5 …", "—" for none.
func partners(t *testing.T, s, n int, nonRec core.RankSet) string {
	t.Helper()
	var parts []string
	for i := range core.Rank(n) {
		if nonRec.Has(i) {
			continue
		}
		p, err := Partner(i, s, n, nonRec)
		if err != nil {
			t.Fatal(err)
		}
		if p == core.NoRank {
			parts = append(parts, fmt.Sprintf("%d→—", i))
		} else {
			parts = append(parts, fmt.Sprintf("%d→%d", i, p))
		}
	}
	return strings.Join(parts, " ")
}

// TestSection422Example: the thesis's worked example (§4.2.2, N = 8, first
// sorting round s = 3): p4 non-recommended gives p0 the partner p5, which
// substitutes p4; with p5 also out, p6 substitutes p4; p2 out gives p6 the
// partner p3, p2's substitute.
func TestSection422Example(t *testing.T) {
	check := func(got, want core.Rank, what string) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	p, _ := Partner(0, 3, 8, set(4))
	check(p, 5, "partner(0, 3) with {4}")
	p, _ = Substitute(4, 8, set(4))
	check(p, 5, "substitute(4) with {4}")
	p, _ = Substitute(4, 8, set(4, 5))
	check(p, 6, "substitute(4) with {4,5}")
	p, _ = Partner(6, 3, 8, set(2))
	check(p, 3, "partner(6, 3) with {2}")
	p, _ = Substitute(2, 8, set(2))
	check(p, 3, "substitute(2) with {2}")
}

// TestSpecTable: the partner and substitute table of the specification
// (§3.9), N = 8, row by row.
func TestSpecTable(t *testing.T) {
	for _, c := range []struct {
		nonRec     core.RankSet
		s3, s2, s1 string
		subs       string
	}{
		{set(), "0→4 1→5 2→6 3→7 4→0 5→1 6→2 7→3", "0→2 1→3 2→0 3→1 4→6 5→7 6→4 7→5", "0→1 1→0 2→3 3→2 4→5 5→4 6→7 7→6", ""},
		{set(2), "0→4 1→5 3→7 4→0 5→1 6→3 7→3", "0→3 1→3 3→1 4→6 5→7 6→4 7→5", "0→1 1→0 3→— 4→5 5→4 6→7 7→6", "2→3"},
		{set(4), "0→5 1→5 2→6 3→7 5→1 6→2 7→3", "0→2 1→3 2→0 3→1 5→7 6→5 7→5", "0→1 1→0 2→3 3→2 5→— 6→7 7→6", "4→5"},
		{set(4, 5), "0→6 1→7 2→6 3→7 6→2 7→3", "0→2 1→3 2→0 3→1 6→— 7→—", "0→1 1→0 2→3 3→2 6→7 7→6", "4→6 5→7"},
		{set(4, 5, 6, 7), "0→— 1→— 2→— 3→—", "0→2 1→3 2→0 3→1", "0→1 1→0 2→3 3→2", "4→0 5→1 6→2 7→3"},
		{set(1, 2, 3, 4, 5, 6, 7), "0→—", "0→—", "0→—", "1→0 2→0 3→0 4→0 5→0 6→0 7→0"},
	} {
		for s, want := range map[int]string{3: c.s3, 2: c.s2, 1: c.s1} {
			if got := partners(t, s, 8, c.nonRec); got != want {
				t.Errorf("%v s=%d: partners %s, want %s", c.nonRec, s, got, want)
			}
		}
		var subs []string
		c.nonRec.Each(func(r core.Rank) {
			p, err := Substitute(r, 8, c.nonRec)
			if err != nil {
				t.Fatal(err)
			}
			subs = append(subs, fmt.Sprintf("%d→%d", r, p))
		})
		if got := strings.Join(subs, " "); got != c.subs {
			t.Errorf("%v: substitutes %s, want %s", c.nonRec, got, c.subs)
		}
	}
}

// TestPartnerPlaysSubstitute: Algorithms 2 and 3 agree (spec §3.9, derived):
// for every non-recommended set of N = 8 and N = 16 and every recommended
// i and round s, i's partner is j = i ⊕ 2^(s−1) when j is recommended,
// else the first recommended process of c(j, 1), …, c(j, s−1), which is
// j's substitute within its half-cluster; so both ends of every virtual
// pair agree on who plays whom.
func TestPartnerPlaysSubstitute(t *testing.T) {
	for _, n := range []int{8, 16} {
		dim := 3
		if n == 16 {
			dim = 4
		}
		for mask := range 1 << n {
			var nonRec core.RankSet
			for r := range n {
				if mask&(1<<r) != 0 {
					nonRec.Add(core.Rank(r))
				}
			}
			for i := range core.Rank(n) {
				if nonRec.Has(i) {
					continue
				}
				for s := 1; s <= dim; s++ {
					got, _ := Partner(i, s, n, nonRec)
					j := i ^ core.Rank(1<<(s-1))
					want := core.NoRank
					if !nonRec.Has(j) {
						want = j
					} else {
						for k := 1; k < s && want == core.NoRank; k++ {
							want, _ = Partner(j, k, n, nonRec)
						}
					}
					if got != want {
						t.Fatalf("n=%d %v: partner(%v, %d) = %v, want %v", n, nonRec, i, s, got, want)
					}
				}
			}
		}
	}
}

// TestBadArguments: a size that is no power of two or a round out of range
// is an error, not a panic.
func TestBadArguments(t *testing.T) {
	if _, err := Partner(0, 4, 8, core.RankSet{}); err == nil {
		t.Error("s = 4 for n = 8: no error")
	}
	if _, err := Substitute(0, 6, core.RankSet{}); err == nil {
		t.Error("n = 6: no error")
	}
}
