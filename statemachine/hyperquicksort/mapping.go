// Package hyperquicksort holds the Hyperquicksort of de Camargo's thesis
// (UFPR, 2017, §4.2) over the DGRP: the mapping of Algorithms 2 and 3
// (mapping.go), which gives every recommended process its partner in a
// sorting round and every non-recommended process its substitute, both
// through the cluster function c(i, s) (core.Cluster), and the sort of
// Algorithm 1 as a deterministic process (process.go) over virtual ranks
// (round.go): each recommended process plays its own rank and those it
// substitutes, taking their lists from the shared store of §4.2.2.
package hyperquicksort

import (
	"fmt"
	"math/bits"

	"github.com/ftkernel/ftkernel/core"
)

// Partner is Algorithm 2, parceiro(rank, rodada): the first recommended
// process of c(rank, s), the cluster rank exchanges with in sorting round
// s (s = log2 n first, then down to 1), or core.NoRank when every process
// of c(rank, s) is non-recommended (then rank does not exchange in that
// round: §4.2.2, "p0 não troca").
//
// Ambiguity: the thesis's loop bound "j ≤ size(nodes)" reads one past the
// list; the loop stops at its last element. nonRec is the set of
// non-recommended processes of the round, the same at every process
// (§4.2.2: "todos os processos possuem a lista de processos
// não-recomendados"). n must be a power of two ≥ 2 and s in 1 … log2 n.
func Partner(rank core.Rank, s, n int, nonRec core.RankSet) (core.Rank, error) {
	nodes, err := core.Cluster(rank, s, n)
	if err != nil {
		return core.NoRank, fmt.Errorf("hyperquicksort: partner: %w", err)
	}
	for _, j := range nodes {
		if !nonRec.Has(j) {
			return j, nil
		}
	}
	return core.NoRank, nil
}

// Substitute is Algorithm 3, substitui(rankNonRecommended, dim): the first
// recommended process of c(r, 1), then c(r, 2), … up to c(r, log2 n), which
// plays r's part in the sort besides its own (§4.2.2: "Um processo p_i pode
// assumir até n − 1 processos não-recomendados"), or core.NoRank when every
// process is non-recommended.
//
// Ambiguity: Algorithm 3's dim is read as log2 n (the whole hypercube), so
// that a process whose whole half-cluster is non-recommended is still
// substituted (spec §3.9 case (b): {4,5,6,7} gives 4 → 0).
func Substitute(r core.Rank, n int, nonRec core.RankSet) (core.Rank, error) {
	if n < 2 || n&(n-1) != 0 {
		return core.NoRank, fmt.Errorf("hyperquicksort: substitute: n = %d is not a power of two ≥ 2", n)
	}
	for s := 1; s <= bits.Len(uint(n))-1; s++ {
		p, err := Partner(r, s, n, nonRec)
		if err != nil {
			return core.NoRank, fmt.Errorf("hyperquicksort: substitute: %w", err)
		}
		if p != core.NoRank {
			return p, nil
		}
	}
	return core.NoRank, nil
}
