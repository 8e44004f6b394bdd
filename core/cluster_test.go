package core

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// clusterRecursive is the thesis's definition of c(i, s) (§3.4), transcribed literally:
// c(i, s) = (i ⊕ 2^(s−1), c(i ⊕ 2^(s−1), 1), …, c(i ⊕ 2^(s−1), s−1)).
func clusterRecursive(i Rank, s int) []Rank {
	j := i ^ Rank(1<<(s-1))
	out := []Rank{j}
	for t := 1; t < s; t++ {
		out = append(out, clusterRecursive(j, t)...)
	}
	return out
}

func TestClusterClosedFormMatchesRecursion(t *testing.T) {
	for n := 2; n <= 1024; n *= 2 {
		for s := 1; 1<<s <= n; s++ {
			for i := Rank(0); int(i) < n; i++ {
				got, err := Cluster(i, s, n)
				if err != nil {
					t.Fatalf("Cluster(%d, %d, %d): %v", i, s, n, err)
				}
				if want := clusterRecursive(i, s); !slices.Equal(got, want) {
					t.Fatalf("n=%d: Cluster(%d, %d) = %v, recursion gives %v", n, i, s, got, want)
				}
			}
		}
	}
}

// Table 3.2 of the thesis (n = 8), row by row: s, then c(0,s) … c(7,s).
func TestClusterTable32(t *testing.T) {
	table := []string{
		"1 | 1 | 0 | 3 | 2 | 5 | 4 | 7 | 6",
		"2 | 2 3 | 3 2 | 0 1 | 1 0 | 6 7 | 7 6 | 4 5 | 5 4",
		"3 | 4 5 6 7 | 5 4 7 6 | 6 7 4 5 | 7 6 5 4 | 0 1 2 3 | 1 0 3 2 | 2 3 0 1 | 3 2 1 0",
	}
	for _, row := range table {
		cells := strings.Split(row, " | ")
		var s int
		fmt.Sscan(cells[0], &s)
		for i, want := range cells[1:] {
			c, err := Cluster(Rank(i), s, 8)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Trim(fmt.Sprint(ints(c)), "[]"); got != want {
				t.Errorf("c(%d, %d) = %s, Table 3.2 says %s", i, s, got, want)
			}
		}
	}
}

func ints(rs []Rank) []int {
	out := make([]int, len(rs))
	for k, r := range rs {
		out[k] = int(r)
	}
	return out
}

// Each c(i, s) is the half of i's size-2^s cluster that does not contain i, without repetition.
func TestClusterIsTheOtherHalf(t *testing.T) {
	const n = 64
	for s := 1; 1<<s <= n; s++ {
		for i := Rank(0); i < n; i++ {
			c, _ := Cluster(i, s, n)
			seen := map[Rank]bool{}
			for _, j := range c {
				if seen[j] || j>>s != i>>s || (j>>(s-1))&1 == (i>>(s-1))&1 {
					t.Fatalf("c(%d, %d) = %v: %v repeated or outside the other half", i, s, c, j)
				}
				seen[j] = true
			}
			if len(c) != 1<<(s-1) {
				t.Fatalf("c(%d, %d) has %d ranks, want %d", i, s, len(c), 1<<(s-1))
			}
		}
	}
}

func TestClusterRejectsBadArguments(t *testing.T) {
	for _, tc := range []struct {
		i    Rank
		s, n int
		want string
	}{
		{0, 1, 6, "n = 6"}, {0, 1, 1, "n = 1"}, {0, 1, 0, "n = 0"},
		{0, 0, 8, "s = 0"}, {0, 4, 8, "s = 4"},
		{8, 1, 8, "i = 8"}, {-1, 1, 8, "i = -1"},
	} {
		c, err := Cluster(tc.i, tc.s, tc.n)
		if err == nil || c != nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Cluster(%d, %d, %d) = %v, %v; want an error naming %q", tc.i, tc.s, tc.n, c, err, tc.want)
		}
	}
}

// FuzzCluster: for any valid (i, s, n) the closed form agrees with the recursion, and for any
// invalid one Cluster returns an error, never a panic.
func FuzzCluster(f *testing.F) {
	f.Add(int32(5), 3, 8)
	f.Add(int32(0), 1, 2)
	f.Add(int32(-1), 0, 6)
	f.Fuzz(func(t *testing.T, i int32, s, n int) {
		c, err := Cluster(Rank(i), s, n)
		valid := n >= 2 && n <= 1<<20 && n&(n-1) == 0 && s >= 1 && s <= 20 && 1<<s <= n && i >= 0 && int(i) < n
		if n > 1<<20 && err == nil {
			return // valid but too large to compare by recursion
		}
		if (err == nil) != valid {
			t.Fatalf("Cluster(%d, %d, %d): err %v, valid %v", i, s, n, err, valid)
		}
		if valid && s <= 12 && !slices.Equal(c, clusterRecursive(Rank(i), s)) {
			t.Fatalf("Cluster(%d, %d, %d) = %v, recursion %v", i, s, n, c, clusterRecursive(Rank(i), s))
		}
	})
}
