package core

import (
	"fmt"
	"math/bits"
)

// Cluster returns c(i, s), the cluster that process i tests in test round s of Hi-ADSD and VCube
// (de Camargo, UFPR 2017, §3.4, after Duarte and Nanya): the ordered list
//
//	c(i, s) = (i ⊕ 2^(s−1), c(i ⊕ 2^(s−1), 1), …, c(i ⊕ 2^(s−1), s−1))
//
// with ⊕ the bitwise XOR. The result has 2^(s−1) ranks, all of them in the half of i's size-2^s
// cluster that does not hold i; its order is the order in which i tests them. It is computed by the
// closed form c(i, s)[k] = i ⊕ 2^(s−1) ⊕ k, k = 0 … 2^(s−1)−1, which agrees with the recursion above
// for every power-of-two n up to 1024 (TestClusterClosedFormMatchesRecursion). For n = 8 it is the
// thesis's Table 3.2, e.g. c(0, 3) = (4, 5, 6, 7) and c(5, 3) = (1, 0, 3, 2).
//
// n is the number of processes and must be a power of two, at least 2; s must be in 1 … log2 n and
// i in 0 … n−1. Otherwise Cluster returns a nil slice and an error naming the bad argument.
// Hyperquicksort uses the same function for its partners: c(i, s)[0] is i's partner in dimension s.
func Cluster(i Rank, s, n int) ([]Rank, error) {
	if n < 2 || n&(n-1) != 0 {
		return nil, fmt.Errorf("cluster: n = %d is not a power of two ≥ 2", n)
	}
	logN := bits.Len(uint(n)) - 1
	if s < 1 || s > logN {
		return nil, fmt.Errorf("cluster: s = %d is outside 1…%d (log2 n for n = %d)", s, logN, n)
	}
	if !i.Valid(n) {
		return nil, fmt.Errorf("cluster: i = %d is outside 0…%d", int32(i), n-1)
	}
	half := 1 << (s - 1)
	j := i ^ Rank(half)
	out := make([]Rank, half)
	for k := range out {
		out[k] = j ^ Rank(k)
	}
	return out, nil
}
